# hvd.torch under hvdrun at np 1, 2 and 3: every op and dtype against values computed on one rank
# (tests/python/conformance.py) and the gradients of the collectives (tests/python/gradients.py).
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/python_lib.bash"

for np in 1 2 3; do
  run_hvdrun 120 -np "$np" "$PY" "$TESTS_PY/conformance.py"
  expect_rc 0 "conformance at np=$np"
  expect_lines "conformance ok rank=[0-9] size=$np" "$np" "conformance at np=$np"
  pass "every op and dtype at np=$np"
  run_hvdrun 120 -np "$np" "$PY" "$TESTS_PY/gradients.py"
  expect_rc 0 "gradients at np=$np"
  expect_lines "gradients ok rank=[0-9] size=$np" "$np" "gradients at np=$np"
  pass "gradients (gradcheck and references) at np=$np"
done
