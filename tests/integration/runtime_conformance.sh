# libhvd's conformance program under hvdrun at np = 1, 2, 3 and 4 (odd counts matter): every op x dtype x size,
# in place and out of place, against references every rank computes; np=2 also runs the 64 MiB cases.
source "$(dirname "$0")/lib.bash"

for np in 1 2 3 4; do
  args=(--quick)
  [ "$np" -eq 2 ] && args=()
  run_hvdrun 600 -np "$np" "$HVD_BIN/hvd_conformance" "${args[@]}"
  expect_rc 0 "conformance at np=$np"
  pass "conformance at np=$np ${args[*]}"
done

run_hvdrun 120 -np 2 "$HVD_BIN/hvd_c_api_smoke"
expect_rc 0 "C API at np=2"
pass "C API at np=2"
