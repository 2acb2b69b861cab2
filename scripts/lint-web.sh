#!/usr/bin/env bash
# `make lint`'s check of the web page's own files in Sources/TenbinServer/Web/Static: app.js and report.js
# with ESLint (Debian's `eslint`; its rules are in .eslintrc.json beside the script), app.css
# with css-tree's parser and grammar (Debian's `node-css-tree`, driven by scripts/lint-css.cjs),
# icon.svg as well-formed XML, manifest.webmanifest as JSON. Nothing is fetched at run time.
# With --self-test it first lints broken copies of them and fails unless each break is caught.
set -euo pipefail
cd "$(dirname "$0")/.."
static=Sources/TenbinServer/Web/Static
# Debian's node packages live in /usr/share/nodejs, which Debian's nodejs searches and a nodejs
# from elsewhere (NodeSource's, say) does not.
export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}

# Lints FOLDER's app.js, app.css, icon.svg and manifest.webmanifest; prints every problem; fails if there is any.
lint() {
    local folder=$1 status=0
    # The unix format needs no colour library; a stale eslint-disable comment is a problem too.
    # Run from the folder: this ESLint refuses a file outside its working directory.
    (cd "$folder" && eslint --format unix --max-warnings 0 --report-unused-disable-directives app.js report.js) || status=1
    node scripts/lint-css.cjs "$folder/app.css" || status=1
    node scripts/lint-css.cjs "$folder/report.css" || status=1
    python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' "$folder/icon.svg" || status=1
    python3 -c 'import sys, json; json.load(open(sys.argv[1], encoding="utf-8"))' "$folder/manifest.webmanifest" || status=1
    return $status
}

# Lints a copy of the files with one break planted by SCRIPT (run in the copy's folder) and
# fails unless the lint fails and its output names EXPECTED.
expect_caught() {
    local what=$1 script=$2 expected=$3 copy output
    copy=$(mktemp -d)
    cp "$static/.eslintrc.json" "$static/app.js" "$static/app.css" "$static/report.js" "$static/report.css" "$static/icon.svg" "$static/manifest.webmanifest" "$copy/"
    (cd "$copy" && eval "$script")
    if output=$(lint "$copy" 2>&1); then
        echo "lint self-test: $what was not caught" >&2
        rm -rf "$copy"
        return 1
    fi
    rm -rf "$copy"
    if [[ $output != *"$expected"* ]]; then
        echo "lint self-test: $what failed the lint without naming \"$expected\":" >&2
        echo "$output" >&2
        return 1
    fi
}

if [[ ${1:-} == --self-test ]]; then
    expect_caught "HTML parsing in app.js" \
        'echo "document.body.innerHTML = location.hash;" >> app.js' "no-restricted-properties"
    expect_caught "an undeclared name in app.js" 'echo "undeclaredThing();" >> app.js' "no-undef"
    expect_caught "a syntax error in app.js" 'echo "if (" >> app.js' "Parsing error"
    expect_caught "an unknown CSS property" 'echo ".x { colr: red; }" >> app.css' "unknown property colr"
    expect_caught "a bad CSS value" 'echo ".x { display: flexx; }" >> app.css' "display: flexx is not a valid value"
    expect_caught "an undeclared CSS variable" 'echo ".x { color: var(--nothing); }" >> app.css' "var(--nothing)"
    expect_caught "CSS that does not parse" 'echo ".x { color red; }" >> app.css' "does not parse"
    expect_caught "HTML parsing in report.js" \
        'echo "document.body.innerHTML = location.hash;" >> report.js' "no-restricted-properties"
    expect_caught "an unknown CSS property in report.css" 'echo ".x { colr: red; }" >> report.css' "unknown property colr"
    expect_caught "an SVG that is not XML" 'echo "<g>" >> icon.svg' "ExpatError"
    expect_caught "a manifest that is not JSON" 'echo "," >> manifest.webmanifest' "JSONDecodeError"
    echo "lint self-test: every planted break was caught"
fi
lint "$static"
echo "web assets lint clean: app.js, app.css, report.js, report.css, icon.svg, manifest.webmanifest"
