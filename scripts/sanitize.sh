#!/usr/bin/env bash
# `make sanitize`: the whole test suite under AddressSanitizer, then under ThreadSanitizer,
# each in its own build folder so the normal build stays incremental. The end-to-end tests
# run the binary built with the same sanitizer. Any report fails the run. As in `make test`,
# scripts/test-summary.sh prints failures in full and passing tests as a count, and stops a
# run that hangs with the stacks and names of what was still running.
# ThreadSanitizer skips two end-to-end suites whose work is one thread's and which are the
# longest under it (about a third of its end-to-end time): SchemaUpgradeCommandTests (every
# earlier schema migrated in place, some 550 commands) and ImportCrashTests (imports killed at
# every moment). Both run in `make test` and under AddressSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
sanitizers=${SANITIZERS:-address thread}
for sanitizer in $sanitizers; do
    scratch=.build-$sanitizer
    skip=(--skip BrowserTests)
    [[ $sanitizer == thread ]] && skip+=(--skip SchemaUpgradeCommandTests --skip ImportCrashTests)
    echo "== swift test --sanitize=$sanitizer ($scratch)"
    swift build --scratch-path "$scratch" --sanitize="$sanitizer" --build-tests
    bin=$(swift build --scratch-path "$scratch" --sanitize="$sanitizer" --show-bin-path)
    # halt_on_error makes a report fail the test that triggered it; the end-to-end tests
    # check every child's exit status and stderr.
    TENBIN_BIN="$bin/tenbin" TENBIN_SANITIZER=$sanitizer \
    ASAN_OPTIONS=halt_on_error=1:detect_leaks=0:suppressions=$PWD/scripts/asan-suppressions.txt \
    TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
        scripts/postgres.sh run scripts/test-summary.sh swift test --scratch-path "$scratch" --sanitize="$sanitizer" --skip-build "${skip[@]}"
    # The browser test on its own, as in `make test`: chromium's load would slow the others.
    TENBIN_BIN="$bin/tenbin" TENBIN_SANITIZER=$sanitizer \
    ASAN_OPTIONS=halt_on_error=1:detect_leaks=0:suppressions=$PWD/scripts/asan-suppressions.txt \
    TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
        scripts/test-summary.sh swift test --scratch-path "$scratch" --sanitize="$sanitizer" --skip-build --filter BrowserTests
done
echo "sanitizers clean: $sanitizers"
