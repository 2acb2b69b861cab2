#!/usr/bin/env bash
# `make demo`: fills the default store (./Storage, or $TENBIN_STORE) from SampleImages,
# casts some votes, and prints the board. Safe to run again: posters already on the board
# are not posted twice.
set -euo pipefail
tenbin=${1:-.build/release/tenbin}
cd "$(dirname "$0")/.."

if [[ $("$tenbin" list --limit 1 --json) == "[]" ]]; then
    for folder in SampleImages/*/; do
        mapfile -t images < <(find "$folder" -maxdepth 1 -type f ! -name post.txt | sort)
        text=()
        tags=()
        while IFS= read -r line || [[ -n $line ]]; do
            if [[ $line == \#* ]]; then
                for tag in $line; do tags+=(--tag "$tag"); done
            elif [[ -n $line ]]; then
                text+=("$line")
            fi
        done < "$folder/post.txt"
        "$tenbin" post "${images[0]}" "${images[1]}" --text "${text[*]:-}" "${tags[@]}" > /dev/null
    done
fi

# Some votes, so the bars have something to show.
for id in $("$tenbin" list --limit 10 --json | grep -o '"id": [0-9]*' | grep -o '[0-9]*'); do
    "$tenbin" vote "$id" 1 --times $((id % 4 + 1)) > /dev/null
    "$tenbin" vote "$id" 2 --times $((id * 7 % 5 + 1)) > /dev/null
done

echo "New:"
"$tenbin" list
echo
echo "Popular:"
"$tenbin" list --sort popular --limit 5
echo
"$tenbin" check
