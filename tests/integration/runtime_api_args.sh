# Bad arguments at the API boundary fail alone: the C API fuzz worker makes thousands of random bad calls
# (different ones on each rank) between good collectives that must stay correct; the C++ worker checks the
# blocking forms that allocate their output (allgather, alltoall, reducescatter) and C++ calls with bad values.
# Both must exit 0 on every rank, and the job must not be stopped by a bad call.
source "$(dirname "$0")/lib.bash"

run_hvdrun 120 -np 2 "$HVD_BIN/hvd_c_api_fuzz" 3000 4242
expect_rc 0 "C API fuzz at np=2"
[ "$(grep -c "3000 rounds, 750 good collectives, 0 failures" <<<"$OUT")" -eq 2 ] || { echo "$OUT"; fail "not every rank finished clean"; }
grep -q "engine stopped" <<<"$ERR" && fail "a bad call stopped the engine: $ERR"
pass "C API: 2 x ~10500 random bad calls each failed alone; 750 good collectives correct at np=2"

for np in 2 3; do
  run_hvdrun 120 -np "$np" "$HVD_BIN/hvd_blocking_forms" 20
  expect_rc 0 "blocking forms at np=$np"
  [ "$(grep -c "blocking forms ok" <<<"$OUT")" -eq "$np" ] || { echo "$OUT"; fail "not every rank reported at np=$np"; }
  pass "blocking allgather/alltoall/reducescatter and bad C++ calls at np=$np"
done
