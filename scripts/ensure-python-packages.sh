#!/usr/bin/env bash
# Installs PyPI packages the tests need and Debian does not package into FOLDER (not the
# system's Python), for Debian's /usr/bin/python3, which owns python3-selenium; the browser
# test puts FOLDER on its path. Without their dependencies: what they need (selenium) comes
# from Debian. Usage: ensure-python-packages.sh FOLDER MODULE=REQUIREMENT…
set -euo pipefail
folder=$1
shift
missing=()
for item in "$@"; do
    module=${item%%=*} requirement=${item#*=}
    PYTHONPATH=$folder /usr/bin/python3 -c "import $module" 2>/dev/null || missing+=("$requirement")
done
((${#missing[@]} == 0)) && exit 0
if ! /usr/bin/python3 -m pip --version >/dev/null 2>&1; then
    scripts/ensure-packages.sh python3-pip
fi
echo "Installing ${missing[*]} into $folder…" >&2
/usr/bin/python3 -m pip install --quiet --disable-pip-version-check --no-deps --target "$folder" "${missing[@]}" >&2
