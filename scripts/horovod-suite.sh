#!/usr/bin/env bash
# Runs Horovod's own PyTorch test file (test/parallel/test_torch.py of github.com/horovod/horovod, unmodified; not
# part of this project: fetch it yourself, with its test/utils/common.py beside it as ../utils/common.py) against
# this build: one test per `hvdrun --horovod-compat -np NP` job, TIMEOUT_S each, and prints how many passed,
# failed, skipped themselves and hung (killed at the limit), then the names of those that did not pass.
#   scripts/horovod-suite.sh /tmp/horovod-suite/parallel/test_torch.py         # NP=2 TIMEOUT_S=120 BUILD=build
#   ONLY='test_horovod_allreduce.*' scripts/horovod-suite.sh FILE              # a subset (grep -E on the names)
#   LOGS=/tmp/suite-logs scripts/horovod-suite.sh FILE                         # keep each test's output, NAME.log
# The interpreter is /usr/bin/python3 (Debian's python3-torch). What the files import that Debian's Python lacks
# is supplied here, outside them, in a temporary folder first on PYTHONPATH: a minimal `pytest` (mark.skip and
# skipif as unittest skips), `packaging.version.parse` (release numbers, for the torch version gates), `mock`
# (unittest.mock), `cloudpickle` (pickle), horovod.runner.util.threads' in_thread (common.py imports them; the
# tests use none) and inspect.getargspec (gone in Python 3.11).
set -uo pipefail
file=${1:?usage: scripts/horovod-suite.sh PATH/TO/test_torch.py}
[ -f "$file" ] || { echo "horovod-suite: no file '$file'" >&2; exit 2; }
root="$(cd "$(dirname "$0")/.." && pwd)"
build=${BUILD:-$root/build}
[ -d "$build" ] && build="$(cd "$build" && pwd)"  # the tests run from their own folder
np=${NP:-2}
limit=${TIMEOUT_S:-120}
[ -x "$build/bin/hvdrun" ] || { echo "horovod-suite: no $build/bin/hvdrun; build first (scripts/build.sh)" >&2; exit 2; }
dir="$(cd "$(dirname "$file")" && pwd)"
module="$(basename "$file" .py)"
shims="$(mktemp -d)"
trap 'rm -rf "$shims"' EXIT
cat >"$shims/pytest.py" <<'PY'
"""Just enough of pytest for Horovod's unittest files: mark.skip / mark.skipif become unittest skips."""
import unittest


class _Mark:
    @staticmethod
    def skip(reason="", *args, **kwargs):
        if callable(reason):  # bare @pytest.mark.skip
            return unittest.skip("pytest.mark.skip")(reason)
        return unittest.skip(reason or "pytest.mark.skip")

    @staticmethod
    def skipif(condition, reason=""):
        return unittest.skipIf(condition, reason)

    def __getattr__(self, name):  # any other mark (parametrize aside) leaves the test as it is
        return lambda *a, **k: (a[0] if len(a) == 1 and callable(a[0]) and not k else (lambda f: f))


mark = _Mark()


def skip(reason=""):
    raise unittest.SkipTest(reason)
PY
cat >"$shims/sitecustomize.py" <<'PY'
import inspect
import sys
import threading
import types

if not hasattr(inspect, "getargspec"):  # removed in Python 3.11; Horovod's tests still call it
    import collections
    _ArgSpec = collections.namedtuple("ArgSpec", "args varargs keywords defaults")
    inspect.getargspec = lambda f: _ArgSpec(*inspect.getfullargspec(f)[:4])


def _in_thread(target, args=(), name=None, daemon=True, silent=False):
    thread = threading.Thread(target=target, args=args, name=name, daemon=daemon)
    thread.start()
    return thread


# common.py imports horovod.runner.util.threads; hvd's `horovod` has no runner.
for _name in ("horovod.runner", "horovod.runner.util", "horovod.runner.util.threads"):
    sys.modules.setdefault(_name, types.ModuleType(_name))
sys.modules["horovod.runner.util.threads"].in_thread = _in_thread
PY
mkdir "$shims/packaging" && : >"$shims/packaging/__init__.py"
cat >"$shims/packaging/version.py" <<'PY'
"""Just enough of packaging.version for Horovod's version gates: parse() compares the leading release numbers."""
import re


def parse(text):
    match = re.match(r"\d+(?:\.\d+)*", str(text))
    return tuple(int(part) for part in match.group(0).split(".")) if match else ()
PY
printf 'from unittest.mock import *  # noqa\n' >"$shims/mock.py"
printf 'from pickle import dumps, loads  # noqa\n' >"$shims/cloudpickle.py"
export PYTHONPATH="$shims:$build/python:$dir/../utils${PYTHONPATH:+:$PYTHONPATH}"  # ../utils: common.py
export OMP_NUM_THREADS=1
names=$(cd "$dir" && PYTHONPATH="$PYTHONPATH:$build/python/hvd/_compat" /usr/bin/python3 -c "
import unittest, $module
for t in unittest.defaultTestLoader.loadTestsFromModule($module):
    for c in t:
        print(c.id().split('.', 1)[1])" 2>/dev/null) || { echo "horovod-suite: cannot list the tests of $file" >&2; exit 2; }
[ -n "${ONLY:-}" ] && names=$(grep -E -- "$ONLY" <<<"$names")
pass=0 fail=0 skip=0 hang=0 failed=() skipped=() hung=()
log="$shims/log"
for name in $names; do
  (cd "$dir" && timeout -k 5 "$limit" "$build/bin/hvdrun" --horovod-compat -np "$np" /usr/bin/python3 -m unittest \
    "$module.$name") >"$log" 2>&1
  rc=$?
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    hang=$((hang + 1)); hung+=("$name"); verdict=hang
  elif [ "$rc" -ne 0 ]; then
    fail=$((fail + 1)); failed+=("$name"); verdict=fail
    [ -n "${VERBOSE:-}" ] && grep -E "Error|assert" "$log" | head -3
  elif grep -q "skipped=" "$log"; then
    skip=$((skip + 1)); skipped+=("$name"); verdict=skip
  else
    pass=$((pass + 1)); verdict=pass
  fi
  [ -n "${LOGS:-}" ] && mkdir -p "$LOGS" && cp "$log" "$LOGS/$name.log"
  printf '%-5s %s\n' "$verdict" "$name"
done
total=$((pass + fail + skip + hang))
echo "horovod-suite: $total tests at np=$np: $pass passed, $fail failed, $skip skipped, $hang hung (limit ${limit}s)"
[ ${#failed[@]} -eq 0 ] || echo "failed: ${failed[*]}"
[ ${#skipped[@]} -eq 0 ] || echo "skipped: ${skipped[*]}"
[ ${#hung[@]} -eq 0 ] || echo "hung: ${hung[*]}"
