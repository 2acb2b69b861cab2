#!/usr/bin/env bash
# `make sanitize`: the whole test suite under AddressSanitizer, then under ThreadSanitizer,
# each in its own build folder so the normal build stays incremental. The end-to-end tests
# run the binary built with the same sanitizer. Any report fails the run. As in `make test`,
# scripts/test-summary.sh prints failures in full and passing tests as a count, and stops a
# run that hangs with the stacks and names of what was still running.
# Both sanitizers skip two end-to-end suites whose work is one thread's SQL and kills, not
# memory or threads, and which are among the longest under them: SchemaUpgradeCommandTests
# (every earlier schema migrated in place, some 550 commands; 66 s of CPU under ASan) and
# ImportCrashTests (imports killed at every moment; 69 s). They also skip the browser tests:
# chromium drives the server through the same routes the end-to-end serve tests send by hand,
# and under the sanitizers those took 68 and 104 s more. All three run in `make test`.
# ThreadSanitizer also skips the walk contract's walks that vote between pages on the walking
# thread (167 s of CPU for the suite under it, the most of any suite measured; one thread, so
# nothing for it to find): the walk with other tasks voting all along stays, and ASan runs all.
set -euo pipefail
cd "$(dirname "$0")/.."
sanitizers=${SANITIZERS:-address thread}
for sanitizer in $sanitizers; do
    scratch=.build-$sanitizer
    skip=(--skip BrowserTests --skip SchemaUpgradeCommandTests --skip ImportCrashTests)
    if [[ $sanitizer == thread ]]; then
        skip+=(--skip 'WalkContractTests/(?!aPopularWalkShowsEveryPosterOnceWhileOtherTasksVoteAllAlong)')
    fi
    echo "== swift test --sanitize=$sanitizer ($scratch)"
    swift build --scratch-path "$scratch" --sanitize="$sanitizer" --build-tests
    bin=$(swift build --scratch-path "$scratch" --sanitize="$sanitizer" --show-bin-path)
    # halt_on_error makes a report fail the test that triggered it; the end-to-end tests
    # check every child's exit status and stderr.
    TENBIN_BIN="$bin/tenbin" TENBIN_SANITIZER=$sanitizer \
    ASAN_OPTIONS=halt_on_error=1:detect_leaks=0:suppressions=$PWD/scripts/asan-suppressions.txt \
    TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
        scripts/postgres.sh run scripts/test-summary.sh swift test --scratch-path "$scratch" --sanitize="$sanitizer" --skip-build "${skip[@]}"
done
echo "sanitizers clean: $sanitizers"
