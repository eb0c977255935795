# Shared by the python_*.sh tests (sourced after lib.bash): the interpreter that has Debian's python3-torch, hvd's
# package from the build tree on PYTHONPATH, and a skip (77) when the build has no Python package.
PY=/usr/bin/python3
PYDIR="$(cd "$HVD_BIN/.." && pwd)/python"
TESTS_PY="${HVD_SOURCE:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}/tests/python"
EXAMPLES_PY="${HVD_SOURCE:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}/examples/python"
if ! ls "$PYDIR"/hvd/torch/_C*.so >/dev/null 2>&1; then
  echo "skip: $PYDIR/hvd/torch/_C*.so not built (python3-torch, python3-dev or pybind11-dev missing?)"
  exit 77
fi
export PYTHONPATH="$PYDIR${PYTHONPATH:+:$PYTHONPATH}"
# Ranks outnumber the cores: one intra-op thread each.
export OMP_NUM_THREADS=1

# expect_lines PATTERN N WHAT: stdout has exactly N matches of PATTERN. Matches, not lines: mpirun's tagged output
# may glue one rank's line to another's when a line reaches it in two reads.
expect_lines() {
  local got
  got=$({ grep -oE -- "$1" <<<"$OUT" || true; } | wc -l)
  [ "$got" -eq "$2" ] || { echo "$OUT" | tail -20; echo "$ERR" | tail -20; fail "$3: $got lines match '$1', expected $2"; }
}
