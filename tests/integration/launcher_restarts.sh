# --max-restarts N on this host: a failing job runs N+1 times, each attempt's workers seeing its number in
# HOROVOD_RESTART_ATTEMPT, and hvdrun exits with the last code; a job that succeeds on a restart exits 0; a job
# stopped by SIGINT is not restarted; --launcher slurm outside an allocation is refused.
source "$(dirname "$0")/lib.bash"

# Rank 1 ends first (exit 0, after its line and a marker file), so its line is in before rank 0's exit 3 stops the
# attempt: rank 0 waits for the marker.
run_hvdrun 60 -np 2 --max-restarts 2 sh -c \
  'echo "attempt=$HOROVOD_RESTART_ATTEMPT"; m="$0/rank1.$HOROVOD_RESTART_ATTEMPT"
   [ "$HOROVOD_RANK" = 1 ] && { touch "$m"; exit 0; }; while [ ! -e "$m" ]; do sleep 0.05; done; exit 3' "$TEST_TMP"
expect_rc 3 "always failing, --max-restarts 2"
for a in 0 1 2; do
  [ "$(grep -c "<stdout>:attempt=$a$" <<<"$OUT")" -eq 2 ] || { echo "$OUT"; fail "attempt $a did not run both ranks"; }
done
[ "$(grep -c 'attempt=' <<<"$OUT")" -eq 6 ] || { echo "$OUT"; fail "expected exactly 3 attempts"; }
expect_err "the job failed (exit 3); restarting it from the start, attempt 3 of 3 (--max-restarts 2)" "restart message"
expect_err "the job failed (exit 3) after 2 restarts; no restarts left (--max-restarts 2)" "final message"
pass "exit 3 three times with --max-restarts 2: attempts 0, 1, 2 ran, hvdrun exits 3"

run_hvdrun 60 -np 2 --max-restarts 3 -- "$WORKER" crash 1 "$TEST_TMP"
expect_rc 139 "--max-restarts 3 with a crash every time"
[ "$(grep -c 'restarting it from the start' <<<"$ERR")" -eq 3 ] || { echo "$ERR"; fail "a crash was not restarted 3 times"; }
pass "SIGSEGV restarted 3 times, then exit 139"

run_hvdrun 60 -np 2 --max-restarts 5 sh -c '[ "$HOROVOD_RESTART_ATTEMPT" -ge 1 ]'
expect_rc 0 "succeeds on the first restart"
[ "$(grep -c 'restarting it from the start' <<<"$ERR")" -eq 1 ] || { echo "$ERR"; fail "expected one restart"; }
pass "fails at attempt 0, succeeds at attempt 1: exit 0 after one restart"

"$HVDRUN" -np 2 --max-restarts 5 --kill-grace 2 "$WORKER" hang >"$TEST_TMP/out" 2>"$TEST_TMP/err" &
job=$!
background_job "$job"
wait_lines 2 'pid=' 30
kill -INT "$job"
wait_exit "$job" 30
expect_rc 130 "SIGINT with --max-restarts 5"
! grep -q 'restarting' <<<"$ERR" || { echo "$ERR"; fail "a job stopped by SIGINT was restarted"; }
pass "SIGINT: exit 130, not restarted"

SLURM_JOB_ID= SLURM_JOB_NODELIST= run_hvdrun 10 --launcher slurm "$WORKER" ok
expect_rc 2 "--launcher slurm outside an allocation"
expect_err "--launcher slurm: not inside a Slurm allocation" "--launcher slurm"
pass "--launcher slurm outside an allocation: exit 2"
