# hvd.torch errors at np=2: a shape or dtype mismatch raises HorovodInternalError on every rank naming the tensor
# and the job goes on; local misuse raises at once; synchronize() releases the GIL; a CUDA tensor without a GPU
# fails clearly; start_timeline/stop_timeline make every rank write its own trace, which rank 0 reads
# (tests/python/errors.py).
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/python_lib.bash"

run_hvdrun 120 -np 2 "$PY" "$TESTS_PY/errors.py"
expect_rc 0 "errors.py"
expect_lines "errors ok rank=[0-9] size=2" 2 "errors.py"
expect_lines "caught: .*grad/fc1.weight" 2 "the shape mismatch, on every rank"
pass "mismatches raise on every rank and the job goes on; misuse is refused; the GIL is free while waiting;" \
  "start/stop_timeline write each rank's trace"
echo "$OUT" | grep -m1 "caught:" | sed 's/^/  /'
