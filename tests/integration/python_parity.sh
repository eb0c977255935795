# Horovod's semantics that hvd.torch matches (tests/python/parity.py: duplicate names in flight, integer scale
# factors, reducescatter's gradient and Adasum refusal, allgather/broadcast after join, grouped allgather and
# reducescatter, sparse gradients, Adasum near the smallest normal, SyncBatchNorm on CPU, DistributedOptimizer's
# groups, warning and state broadcast), at np 2 and 3, through hvd.torch and through the `horovod` shim
# (hvdrun --horovod-compat, PARITY_MODULE=horovod.torch).
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/python_lib.bash"

for np in 2 3; do
  run_hvdrun 180 -np "$np" "$PY" "$TESTS_PY/parity.py"
  expect_rc 0 "parity.py through hvd.torch at np=$np"
  expect_lines "parity ok rank=[0-9] size=$np" "$np" "parity.py through hvd.torch at np=$np"
  pass "hvd.torch at np=$np: Horovod's semantics for every item"

  PARITY_MODULE=horovod.torch run_hvdrun 180 --horovod-compat -np "$np" "$PY" "$TESTS_PY/parity.py"
  expect_rc 0 "parity.py through horovod.torch at np=$np"
  expect_lines "parity ok rank=[0-9] size=$np" "$np" "parity.py through horovod.torch at np=$np"
  pass "horovod.torch (--horovod-compat) at np=$np: the same"
done
