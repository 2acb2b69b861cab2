#!/usr/bin/env bash
# `make test` and `make sanitize`: runs the command given (`swift test …`) and prints its
# failures, warnings and anything unexpected in full, but each passing test only as part of
# one count at the end. Exits with the command's own status. `swift test` alone still shows
# every line.
#
# A run still going after TEST_TIME_LIMIT seconds (default 1800; 0 for none) is stuck: the
# watchdog prints the stacks of the test process and of the children it started (gdb), the
# processes still running, and last the tests that started and never ended, then kills the
# run and exits 124. CI shows the end of its log, so the names come last.
set -uo pipefail
limit=${TEST_TIME_LIMIT:-1800}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# Every line as printed goes to $scratch/raw as well, for the watchdog's report. The command
# and its filters run as a job, in a process group of their own that the watchdog can kill
# (and Ctrl-C, which reaches only this script's group now). The job reads no terminal: a
# background group that did would be stopped.
set -m
{
    "$@" 2>&1 </dev/null
    echo $? >"$scratch/status"
} | tee "$scratch/raw" | awk '
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
' &
job=$!
set +m
group=$(ps -o pgid= -p "$job" | tr -d ' ')
trap 'kill -TERM -- "-$group" 2>/dev/null; exit 130' INT TERM

# The processes under `pid`, one per line, the deepest last.
descendants() {
    local child
    for child in $(ps -o pid= --ppid "$1"); do
        echo "$child"
        descendants "$child"
    done
}

# Every process of the run: the job's group and what it started, which Foundation puts in
# process groups of their own.
run_processes() {
    local pid
    for pid in $(pgrep -g "$group"); do
        echo "$pid"
        descendants "$pid"
    done | sort -un
}

report() {
    echo "== watchdog: still running after $limit s: $*"
    local pids pid
    pids=$(run_processes)
    for pid in $pids; do
        # The test process (tenbinPackageTests.xctest, a name the kernel cuts to 15
        # characters) and the tenbin processes its tests started.
        [[ $(ps -o comm= -p "$pid") == tenbin* ]] || continue
        echo "== stacks of $(ps -o pid=,args= -p "$pid" | cut -c1-160)"
        if command -v gdb >/dev/null; then
            timeout 60 gdb -p "$pid" -batch -ex "thread apply all bt 16" 2>/dev/null | grep -E '^(Thread|#)' | cut -c1-200 | head -400
        else
            echo "(gdb is not installed)"
        fi
    done
    echo "== processes still running"
    # shellcheck disable=SC2086  # one argument per number
    [[ -n $pids ]] && ps -o pid=,etimes=,stat=,args= -p "$(echo $pids | tr ' ' ,)" | cut -c1-200
    echo "== tests started and not ended"
    awk '
        /^◇ Test .* started\.$/ { name = $0; sub(/^◇ Test /, "", name); sub(/ started\.$/, "", name); open[name] = 1 }
        /^(✔|✘) Test .* (passed|failed) after / { name = $0; sub(/^(✔|✘) Test /, "", name); sub(/ (passed|failed) after .*$/, "", name); delete open[name] }
        END { for (name in open) print "  " name }
    ' "$scratch/raw"
}

started=$SECONDS
while kill -0 "$job" 2>/dev/null; do
    if ((limit > 0 && SECONDS - started >= limit)); then
        report "$@"
        run_processes | xargs -r kill -KILL 2>/dev/null
        kill -KILL -- "-$group" 2>/dev/null  # anything the group started meanwhile
        wait "$job" 2>/dev/null
        echo "== watchdog: killed after $limit s: $*"
        exit 124
    fi
    sleep 1
done
wait "$job"
[[ -f $scratch/status ]] || exit 1
exit "$(cat "$scratch/status")"
