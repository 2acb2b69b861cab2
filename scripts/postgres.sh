#!/usr/bin/env bash
# A throwaway PostgreSQL server for tests and benchmarks, in its own folder, on its own port
# and socket folder, removed by `stop`.
#
#   scripts/postgres.sh start DIR      initdb + start; prints the connection URL
#   scripts/postgres.sh restart DIR    stop (immediate) and start again on the same port
#   scripts/postgres.sh halt DIR       stop (immediate), keeping DIR (an outage; `stop` removes it)
#   scripts/postgres.sh stop DIR       stop (immediate) and remove DIR
#   scripts/postgres.sh standby DIR PRIMARY_DIR
#                                      a hot standby of the server in PRIMARY_DIR (pg_basebackup
#                                      over streaming replication) started in DIR; prints its URL
#   scripts/postgres.sh resume DIR     start again a server halted with `halt` (same port)
#   scripts/postgres.sh run CMD…       start, run CMD with TENBIN_TEST_DATABASE_URL and
#                                      TENBIN_TEST_POSTGRES_DIR set, stop and remove (also when
#                                      CMD fails); exits with CMD's status
#
# initdb refuses to run as root, so as root the server runs as the `postgres` user (runuser).
# Trust authentication for everyone but the role `tenbin_password`, which must log in with a
# password (SCRAM) so tests can check that passwords never leak.
set -euo pipefail
# A server started from a busy test process would inherit its open descriptors, and PostgreSQL
# refuses to start when it finds most of max_files_per_process already open: close them.
for descriptor in /proc/$$/fd/*; do
    number=${descriptor##*/}
    if [[ $number =~ ^[0-9]+$ ]] && ((number > 2)); then eval "exec $number>&-" 2>/dev/null || true; fi
done

bin_dir() {
    local dir
    for dir in /usr/lib/postgresql/*/bin; do
        [[ -x $dir/initdb ]] && { echo "$dir"; return 0; }
    done
    command -v initdb >/dev/null 2>&1 && { dirname "$(command -v initdb)"; return 0; }
    return 1
}

as_owner() {
    if [[ $(id -u) -eq 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi
}

start_server() {
    local dir=$1 bin port
    bin=$(bin_dir) || { echo "Error: PostgreSQL is not installed (no initdb); install postgresql" >&2; return 1; }
    port=$(cat "$dir/port")
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w -t 30 \
        -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_connections=200 -c fsync=on" start >/dev/null
}

start() {
    local dir=$1 bin
    bin=$(bin_dir) || { echo "Error: PostgreSQL is not installed (no initdb); install postgresql" >&2; return 1; }
    mkdir -p "$dir"
    [[ $(id -u) -eq 0 ]] && chown postgres:postgres "$dir"
    as_owner "$bin/initdb" -D "$dir/data" -U postgres -A trust --no-sync -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 ||
        { cat "$dir/initdb.log" >&2; return 1; }
    as_owner sh -c "{ echo 'host all tenbin_password 127.0.0.1/32 scram-sha-256'; cat '$dir/data/pg_hba.conf'; } > '$dir/data/hba.new' && mv '$dir/data/hba.new' '$dir/data/pg_hba.conf'"
    start_on_free_port "$dir" "the test PostgreSQL server"
}

# Starts the server in $1 on a free port (a few random ones tried) and prints its URL; $2 names
# it in the error.
start_on_free_port() {
    local dir=$1 port
    for _ in 1 2 3 4 5 6 7 8; do
        port=$((20000 + RANDOM % 20000))
        echo "$port" >"$dir/port"
        if start_server "$dir" 2>/dev/null; then
            echo "postgresql://postgres@127.0.0.1:$port/postgres"
            return 0
        fi
    done
    echo "Error: $2 did not start; its log:" >&2
    cat "$dir/log" >&2 || true
    return 1
}

stop() {
    local dir=$1 bin
    [[ -d $dir ]] || return 0
    if bin=$(bin_dir) && [[ -f $dir/data/postmaster.pid ]]; then
        as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    rm -rf "$dir"
}

# A streaming hot standby of the server in $2, in $1: a base backup taken over the replication
# protocol (`-R` writes primary_conninfo and standby.signal, `-X stream` streams the log written
# meanwhile), started on a port of its own. The primary's defaults allow it (wal_level=replica,
# max_wal_senders=10, and initdb's trust lines for replication from 127.0.0.1).
standby() {
    local dir=$1 primary=$2 bin primary_port
    bin=$(bin_dir) || { echo "Error: PostgreSQL is not installed (no pg_basebackup); install postgresql" >&2; return 1; }
    [[ -f $primary/port ]] || { echo "Error: no test PostgreSQL server in $primary (start one first)" >&2; return 1; }
    primary_port=$(cat "$primary/port")
    mkdir -p "$dir"
    [[ $(id -u) -eq 0 ]] && chown postgres:postgres "$dir"
    # --checkpoint=fast: the backup starts at once, rather than after a spread checkpoint of a
    # primary just loaded (more than 8 minutes of waiting after a copy of a million posters).
    as_owner "$bin/pg_basebackup" -h 127.0.0.1 -p "$primary_port" -U postgres -D "$dir/data" -R -X stream --no-sync --checkpoint=fast \
        >"$dir/basebackup.log" 2>&1 || { echo "Error: pg_basebackup from port $primary_port failed:" >&2; cat "$dir/basebackup.log" >&2; return 1; }
    start_on_free_port "$dir" "the standby"
}

resume() {
    start_server "$1"
}

halt() {
    local dir=$1 bin
    bin=$(bin_dir)
    as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null
}

restart() {
    local dir=$1 bin
    bin=$(bin_dir)
    as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null
    start_server "$dir"
}

run() {
    local url status=0
    run_dir=$(mktemp -d /tmp/tenbin-postgres.XXXXXX)
    local dir=$run_dir
    trap 'stop "$run_dir"' EXIT
    trap 'exit 130' INT TERM
    if url=$(start "$dir"); then
        export TENBIN_TEST_DATABASE_URL=$url TENBIN_TEST_POSTGRES_DIR=$dir
    else
        echo "!!! PostgreSQL could not be started: the PostgreSQL tests and benchmarks will be SKIPPED !!!" >&2
        if [[ ${CI:-} == true ]]; then
            echo "Error: in CI the PostgreSQL tests must run" >&2
            exit 1
        fi
    fi
    "$@" || status=$?
    return $status
}

case ${1:-} in
start) start "$2" ;;
stop) stop "$2" ;;
restart) restart "$2" ;;
halt) halt "$2" ;;
standby) standby "$2" "$3" ;;
resume) resume "$2" ;;
run) shift; run "$@" ;;
*) echo "usage: $0 start DIR | restart DIR | halt DIR | resume DIR | stop DIR | standby DIR PRIMARY_DIR | run CMD…" >&2; exit 64 ;;
esac
