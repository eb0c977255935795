# hvd.mxnet at np=2 and 3 (tests/python/mxnet_ops.py): every op against numpy over the dtypes, DistributedTrainer
# leaving identical parameters, and an allreduce_ that returns before a slow peer arrives. The interpreter is
# scripts/framework-python.sh mxnet (MXNet 1.9.1's environment), not python_lib.bash's Debian python3. Then an
# unmodified `import horovod.mxnet` script under --horovod-compat, and an MXNet exception on rank 1 of 3 named as
# hvdrun's root cause.
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/report_lib.bash"
SOURCE_DIR="${HVD_SOURCE:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
PYDIR="$(cd "$HVD_BIN/.." && pwd)/python"
if ! ls "$PYDIR"/hvd/mxnet/_mx*.so >/dev/null 2>&1; then
  echo "skip: $PYDIR/hvd/mxnet/_mx*.so not built (python3-dev or pybind11-dev missing?)"
  exit 77
fi
PY=$("$SOURCE_DIR/scripts/framework-python.sh" mxnet) || fail "no MXNet environment: scripts/install-framework-env.sh mxnet"
export PYTHONPATH="$PYDIR${PYTHONPATH:+:$PYTHONPATH}"
export OMP_NUM_THREADS=1  # ranks outnumber the cores

for np in 2 3; do
  run_hvdrun 180 -np "$np" "$PY" "$SOURCE_DIR/tests/python/mxnet_ops.py"
  expect_rc 0 "mxnet_ops.py at np=$np"
  got=$({ grep -oE "mxnet_ops OK rank [0-9]+" <<<"$OUT" || true; } | wc -l)
  [ "$got" -eq "$np" ] || fail "mxnet_ops.py at np=$np: $got ranks reported OK, expected $np"
  pass "hvd.mxnet ops, DistributedTrainer and asynchrony at np=$np"
done

script='import horovod.mxnet as hvd, mxnet as mx
hvd.init()
print("compat", hvd.allreduce(mx.nd.ones(2) * (hvd.rank() + 1), op=hvd.Sum).asnumpy().tolist())'
run_hvdrun 120 --horovod-compat -np 2 "$PY" -c "$script"
expect_rc 0 "horovod.mxnet under --horovod-compat"
got=$({ grep -oE "<stdout>:compat \[3.0, 3.0\]" <<<"$OUT" || true; } | wc -l)
[ "$got" -eq 2 ] || { echo "$OUT"; echo "$ERR" | tail; fail "horovod.mxnet: $got ranks printed the sum, expected 2"; }
pass "an unmodified horovod.mxnet script under --horovod-compat"

run_hvdrun 120 -np 3 --kill-grace 2 --report "$REPORT" "$PY" "$SOURCE_DIR/tests/python/mxnet_raise.py" 1
expect_rc 1 "rank 1 raises"
expect_root_cause "  rank 1 on localhost (pid "
expect_reason "MXNetError"
expect_json 'j["root_cause"]["source"]' python
pass "an MXNet exception on rank 1 is the root cause, with its type"
