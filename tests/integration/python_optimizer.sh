# hvd.torch's DistributedOptimizer (Average, Sum, predivide, fp16, backward_passes_per_step, skip_synchronize,
# Adasum) and state broadcasting (parameters; SGD, Adam, AdamW, Adagrad, RMSprop state) at np=2 and 3
# (tests/python/optimizer.py).
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/python_lib.bash"

for np in 2 3; do
  run_hvdrun 120 -np "$np" "$PY" "$TESTS_PY/optimizer.py"
  expect_rc 0 "optimizer.py at np=$np"
  expect_lines "optimizer ok rank=[0-9] size=$np" "$np" "optimizer.py at np=$np"
  pass "DistributedOptimizer and state broadcast at np=$np"
done
