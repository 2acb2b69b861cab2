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
# Each skips more where it has nothing to find (the times are from 7 Dec 2026):
# - AddressSanitizer skips the popular search walk over 2,060 posters, the longest test of the
#   whole suite (46 s of the debug build's 528 in a run of one test at a time; its suite took
#   135 s alone under ASan, nearly all of it this test, the tail of the run). Its time goes to
#   walking 2,060 posters by votes, 83 pages an order with votes and deletions between, in Swift
#   and SQL that the walk contract's other five walks also run. `make test` runs it.
# - ThreadSanitizer skips what runs on one thread. That is the walk contract's walks that vote
#   between pages on the walking thread (167 s of CPU under it); the walk with other tasks
#   voting all along stays. It is also the in-process suites whose tests run on one thread and
#   took 3 s or more in a run of one test at a time (`thread_skipped_suites`: 54 s of the 528;
#   SearchSegmentTests alone took 58 s of CPU under it); not those whose code under test starts
#   threads of its own or is shared between them (the importer, copy, PostgreSQL's search block
#   cache), though the tests use one. And it is the end-to-end suites of
#   one-shot commands (`thread_skipped_commands`; the end-to-end target took 370 of its 756 s,
#   most of it starting sanitized processes). Those commands run no thread of their own. The
#   threads they share (the image shrink thread, the blob flusher, the store's checkpointer) run
#   under it in the in-process suites and in the end-to-end suites it keeps: serve,
#   multi-server, watch, import, copy, backup, posting, interactive search, the soak and
#   store-closing ones. Processes racing each other (ConcurrencyTests, the crash tests) are out
#   of its sight anyway. ASan runs every one of these.
set -euo pipefail
cd "$(dirname "$0")/.."
sanitizers=${SANITIZERS:-address thread}
thread_skipped_suites=SearchSegment,SearchIndex,PostgresSearch,PostgresReadingMigration,BlocklistContract,FeedDiff,\
PosterTextLimitContract,PerceptualHash
thread_skipped_commands=AltTextCommand,BlocklistCommand,CommandLine,Concurrency,CountsForPeople,CrashSafety,\
DatabaseMapping,DemoScript,EditCommand,ExitStatus,ExportCommand,FATStore,HelpDefaults,HostileUpload,\
ImageFormat,ImageLimit,ImagesOnScreen,LibraryLoading,MissingStore,ModerationCommand,OptionDeclaration,\
PostFromStandardInput,PostgresCommand,PostgresSchemaCommand,SearchCommand,StoreLocation,TagCommand,\
TerminalImage,TerminalPicture,TerminalSafety,TestHarness,TestSummaryScript,TextLimitCommand,TimelineCommand
for sanitizer in $sanitizers; do
    scratch=.build-$sanitizer
    skip=(--skip BrowserTests --skip SchemaUpgradeCommandTests --skip ImportCrashTests)
    if [[ $sanitizer == address ]]; then
        skip+=(--skip 'WalkContractTests/aPopularSearchWalkShowsEveryMatchOnceWhileVotesMoveThem')
    fi
    if [[ $sanitizer == thread ]]; then
        skip+=(--skip 'WalkContractTests/(?!aPopularWalkShowsEveryPosterOnceWhileOtherTasksVoteAllAlong)'
            --skip "TenbinKitTests\\.(${thread_skipped_suites//,/|})Tests/"
            --skip "TenbinEndToEndTests\\.(${thread_skipped_commands//,/|})Tests/")
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
