#!/usr/bin/env bash
# `make fuzz`: builds each libFuzzer target (Fuzz/Fuzz*.swift) together with TenbinKit's
# sources under -sanitize=fuzzer,address, then runs each for FUZZ_SECONDS (default 60),
# seeded from SampleImages and the test fixtures. A crash leaves its input in
# .build-fuzz/artifacts/<target>/; add it to Tests/Fixtures/fuzz/ with a test.
# FUZZ_SEED fixes libFuzzer's random seed and starts from an empty corpus of its own, with
# Swift's hashing made deterministic: two runs with one seed try the same inputs at first,
# then drift apart (for reasons not pinned down). CI sets one, so its runs start alike here
# and there. Unset, each run explores afresh and adds to .build-fuzz/corpus. A
# failure is reproduced from its input: the artifact, or the Base64 libFuzzer prints for a
# small one at the end of the log.
#   scripts/fuzz.sh [TARGET…]     targets: image, posttext, query, request
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-60}
seed=()
if [[ -n ${FUZZ_SEED:-} ]]; then
    seed=(-seed="$FUZZ_SEED")
    export SWIFT_DETERMINISTIC_HASHING=1
fi
build=.build-fuzz
mkdir -p "$build"

# The C shims, instrumented for coverage and AddressSanitizer.
rm -f "$build"/*.o
for source in Sources/CImageCodec/*.c Sources/CCrypto/*.c Sources/CLibraryLoader/*.c Sources/CMeCab/*.c; do
    clang -fsanitize=fuzzer-no-link,address -O1 -g -I Sources/CImageCodec/include -I Sources/CCrypto/include \
        -I Sources/CLibraryLoader/include -I Sources/CMeCab/include \
        -c "$source" -o "$build/shim-$(basename "$source" .c).o"
done

targets=("$@")
if ((${#targets[@]} == 0)); then
    for file in Fuzz/Fuzz*.swift; do
        name=$(basename "$file" .swift)
        targets+=("$(echo "${name#Fuzz}" | tr '[:upper:]' '[:lower:]')")
    done
fi
for target in "${targets[@]}"; do
    if ! grep -q "@_cdecl(\"tenbin_fuzz_$target\")" Fuzz/Fuzz*.swift; then echo "Error: no fuzz target '$target'" >&2; exit 64; fi
done

# The Swift is compiled once for every target: TenbinKit's sources, the
# server's request parsing (pure Swift, no libmicrohttpd) and each Fuzz*.swift, whose entry
# point is named tenbin_fuzz_<target>. Each target's binary is its objects and a line of C
# naming its function libFuzzer's entry point. (Compiling TenbinKit for each target took
# four times as long: about 95 s each on two cores.) The module is optimised whole, then its
# machine code is generated on as many threads as there are cores, one object per source file
# (into $build/swift-objects): 88 s on two cores here, against 118 s on one thread in CI.
swift=$(find "$PWD/Sources/TenbinKit" "$PWD/Sources/TenbinServer/Request" "$PWD"/Fuzz/Fuzz*.swift -name '*.swift' | sort)
swift="$swift $PWD/Sources/TenbinServer/Routing/APIError.swift $PWD/Sources/TenbinServer/Observability/PostRefusal.swift"
echo "== compiling the fuzz targets' Swift ($build/swift-objects)"
rm -rf "$build/swift-objects" "$build/fuzz-swift.o"
mkdir "$build/swift-objects"
# shellcheck disable=SC2086
(cd "$build/swift-objects" && swiftc -sanitize=fuzzer,address -parse-as-library -module-name TenbinFuzz -package-name tenbin -O -g \
    -swift-version 6 -I "$OLDPWD/Sources/CSQLite" -I "$OLDPWD/Fuzz/CCrypto" -I "$OLDPWD/Fuzz/CImageCodec" -I "$OLDPWD/Fuzz/CMeCab" \
    -wmo -num-threads "$(nproc)" -c $swift)

# Each target is linked, then fuzzed in the background, as many at once as there are cores
# (FUZZ_JOBS overrides): each run is one process on one core, so two targets on two cores
# take the time of one. Their reports are printed in order once all have ended.
jobs_at_once=${FUZZ_JOBS:-$(nproc)}
fuzz() {
    local target=$1 binary=$2 corpus=$3 artifacts=$4
    shift 4
    if ! LSAN_OPTIONS="suppressions=$PWD/Fuzz/lsan-suppressions.txt" "$binary" -max_total_time="$seconds" "${seed[@]}" -timeout=10 -rss_limit_mb=1024 -print_final_stats=1 \
        -artifact_prefix="$artifacts" "$corpus" "$@" 2>"$build/fuzz-$target.log"; then
        echo "Error: fuzz target $target found a failure; see $build/fuzz-$target.log and $artifacts" >&2
        tail -30 "$build/fuzz-$target.log" >&2
        return 1
    fi
    grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$build/fuzz-$target.log" | sed "s/^/  $target: /"
}
for target in "${targets[@]}"; do
    binary="$build/fuzz-$target"
    rm -f "$binary"
    echo "== linking $binary"
    printf '#include <stddef.h>\n#include <stdint.h>\nint tenbin_fuzz_%s(const uint8_t *, long);\nint LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return tenbin_fuzz_%s(data, (long)size); }\n' \
        "$target" "$target" | clang -fsanitize=fuzzer-no-link,address -O1 -x c -c - -o "$build/entry-$target.o"
    # shellcheck disable=SC2086
    swiftc -sanitize=fuzzer,address "$build"/swift-objects/*.o "$build/entry-$target.o" "$build"/shim-*.o \
        -lsqlite3 -lcrypto -ljpeg -lpng16 -lwebp -o "$binary" 2>&1 |
        { grep -v "Cannot export local symbol" || true; }  # gold's noise about ASan's own helpers
    [[ -x $binary ]] || { echo "Error: building $binary failed" >&2; exit 1; }
    corpus="$build/corpus/$target"
    if [[ -n ${FUZZ_SEED:-} ]]; then
        corpus="$build/corpus-seeded/$target"
        rm -rf "$corpus"
    fi
    artifacts="$build/artifacts/$target/"
    mkdir -p "$corpus" "$artifacts"
    seeds=()
    case $target in
        image) seeds=(SampleImages/*/ Tests/Fixtures/hostile Tests/Fixtures/colors Tests/Fixtures/orientation Tests/Fixtures/formats Fuzz/Seeds/image) ;;
        posttext) seeds=(Fuzz/Seeds/posttext) ;;
        query) seeds=(Fuzz/Seeds/query) ;;
        request) seeds=(Fuzz/Seeds/request) ;;
    esac
    [[ -d Tests/Fixtures/fuzz/$target ]] && seeds+=("Tests/Fixtures/fuzz/$target")
    while (($(jobs -rp | wc -l) >= jobs_at_once)); do wait -n || true; done
    echo "== fuzzing $target for ${seconds}s (from $(date -u +%H:%M:%S) UTC)"
    rm -f "$build/fuzz-$target.status"
    {
        if fuzz "$target" "$binary" "$corpus" "$artifacts" "${seeds[@]}" >"$build/fuzz-$target.report" 2>&1; then
            echo 0 >"$build/fuzz-$target.status"
        fi
    } &
done
wait
status=0
for target in "${targets[@]}"; do
    cat "$build/fuzz-$target.report"
    [[ $(cat "$build/fuzz-$target.status" 2>/dev/null) == 0 ]] || status=1
done
exit $status
