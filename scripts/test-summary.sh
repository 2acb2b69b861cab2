#!/usr/bin/env bash
# `make test`: runs the command given (`swift test …`) and prints its failures, warnings and
# anything unexpected in full, but each passing test only as part of one count at the end.
# Exits with the command's own status. `swift test` alone still shows every line.
set -uo pipefail
"$@" 2>&1 | awk '
    /^◇ Test run started\.$/ { next }
    /^◇ (Test|Suite) .* started\.$/ { next }
    /^↳ (Testing Library Version|Target Platform): / { next }
    /^✔ Test run with / { print; fflush(); next }
    /^✔ Test .* passed after / { passed++; next }
    /^✔ Suite .* passed after / { next }
    /^Test Suite .* (started|passed) at / { next }
    /^Test Case .* (started|passed)/ { next }
    /^[[:space:]]*Executed 0 tests, with 0 failures/ { next }
    { print; fflush() }
    END { printf "%d passing %s not listed one by one (swift test --skip-build lists them).\n", passed, passed == 1 ? "test" : "tests" }
'
exit "${PIPESTATUS[0]}"
