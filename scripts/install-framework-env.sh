#!/usr/bin/env bash
# Installs the framework environments named (scripts/framework-python.sh says which exist and where they go): a venv
# of /usr/bin/python3 with exactly scripts/framework-envs/NAME.txt from PyPI. Does nothing for one installed already;
# several runs at once take turns (flock), and an interrupted install is redone, never used half made.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 1 ] || { echo "usage: $0 NAME... (see scripts/framework-python.sh)" >&2; exit 2; }
for name in "$@"; do
  dir=$("$here/framework-python.sh" --env-dir "$name")
  [ -f "$dir/.complete" ] && continue
  mkdir -p "$(dirname "$dir")"
  (
    flock 9
    [ -f "$dir/.complete" ] && exit 0
    rm -rf "$dir"
    start=$(date +%s)
    echo "install-framework-env: $name into $dir" >&2
    /usr/bin/python3 -m venv "$dir"
    "$dir/bin/python" -m pip install -q --disable-pip-version-check --no-input --no-deps \
      -r "$here/framework-envs/$name.txt"
    "$dir/bin/python" -m pip check >&2
    touch "$dir/.complete"
    # Left behind by an interrupted install of other pins (never usable), unless an install holds it now.
    for old in "${dir%-*}"-*/; do
      old=${old%/}
      if [ "$old" != "$dir" ] && [ ! -f "$old/.complete" ]; then flock -n "$old.lock" rm -rf "$old" || true; fi
    done
    echo "install-framework-env: $name installed in $(( $(date +%s) - start )) s ($(du -sh "$dir" | cut -f1))" >&2
  ) 9>"$dir.lock"
done
