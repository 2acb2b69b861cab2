#!/usr/bin/env bash
# `make demo`: fills the default store (./Storage, or $TENBIN_STORE) from SampleImages,
# casts some votes, and prints the board. Safe to run again: `tenbin import` skips posters
# already on the board, and only posters nobody has voted on get the demo's votes, so a
# second run adds nothing.
set -euo pipefail
tenbin=${1:-.build/release/tenbin}
cd "$(dirname "$0")/.."

# Importing is idempotent: posters already on the board are skipped, not added again.
"$tenbin" import SampleImages

# Some votes, so the bars have something to show: only on posters without votes yet.
for id in $("$tenbin" list --limit 10 --json | grep '"good1": 0, "good2": 0' | grep -o '"id": [0-9]*' | grep -o '[0-9]*'); do
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
