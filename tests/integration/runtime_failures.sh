# Failures inside a job: a dtype or shape mismatch names the ranks and the job goes on; a rank that exits in the
# middle of an allreduce makes the others' ops fail within 10 s naming it; the stall inspector warns, and with
# HOROVOD_STALL_SHUTDOWN_TIME_SECONDS ends the job.
source "$(dirname "$0")/lib.bash"

run_hvdrun 120 -np 2 "$HVD_BIN/hvd_mismatch"
expect_rc 0 "mismatch"
grep -qE "rank 1.*float16|float16.*rank 1" <<<"$OUT$ERR" || fail "mismatch error does not name rank 1 and float16"
pass "dtype and shape mismatches name the ranks; the job goes on"

# The dying rank exits 0 so that hvdrun does not stop the survivors before they report.
run_hvdrun 120 -np 3 "$HVD_BIN/hvd_peer_exit"
expect_rc 0 "peer exit"
n=$(grep -cE "failed after [0-9.]+ s:.*rank 2" <<<"$OUT$ERR" || true)
[ "$n" -eq 2 ] || { echo "$OUT$ERR" | tail -20; fail "expected both survivors to name rank 2, got $n"; }
pass "a rank exiting mid-allreduce fails the others' ops naming it"

HOROVOD_STALL_CHECK_TIME_SECONDS=2 run_hvdrun 120 -np 2 -x HOROVOD_STALL_CHECK_TIME_SECONDS "$HVD_BIN/hvd_stall"
expect_rc 0 "stall warning"
grep -q "stall: some ranks submitted" <<<"$ERR" || { echo "$ERR" | tail; fail "no stall warning"; }
grep -qE "allreduce 'late' waited [0-9]+ s for rank 0 \(localhost\)" <<<"$ERR" || { echo "$ERR" | tail; fail "the stall warning does not name 'late' and rank 0's host"; }
pass "stall warning names the tensor"

export HOROVOD_STALL_CHECK_TIME_SECONDS=1 HOROVOD_STALL_SHUTDOWN_TIME_SECONDS=3
run_hvdrun 120 -np 2 -x HOROVOD_STALL_CHECK_TIME_SECONDS -x HOROVOD_STALL_SHUTDOWN_TIME_SECONDS "$HVD_BIN/hvd_stall"
expect_rc 3 "stall shutdown"
grep -q "stall shutdown" <<<"$OUT$ERR" || fail "no stall shutdown message"
pass "stall shutdown ends the job"
