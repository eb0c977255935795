# A worker failing on h2 stops h1's workers and hvdrun returns h2's code; a crash (SIGSEGV) on h2 gives 139.
# SIGKILL of h2's agent ends the job with a message naming h2, and leaves nothing behind anywhere.
source "$(dirname "$0")/multihost_lib.bash"

# Rank 3 (on h2) exits 7 a second after start; the others hang until stopped.
h0_hvdrun 60 -np 4 -H h1:2,h2:2 --kill-grace 2 -- sh -c \
  "if [ \"\$HOROVOD_RANK\" = 3 ]; then sleep 1; exit 7; fi; exec $WORKER hang" HVD_MH_TAG
expect_rc 7 "rank 3 on h2 exits 7"
expect_no_job_on 10 h1 h2
pass "exit 7 on h2 -> hvdrun exits 7, h1's workers stopped, nothing left (${ELAPSED}s)"

h0_hvdrun 60 -np 4 -H h1:2,h2:2 --kill-grace 2 "$WORKER" crash 3
expect_rc 139 "rank 3 on h2 crashes"
expect_no_job_on 10 h1 h2
pass "SIGSEGV on h2 -> hvdrun exits 139, nothing left"

# SIGKILL of h2's agent while the job runs.
h0_hvdrun_bg -np 4 -H h1:2,h2:2 --kill-grace 2 "$WORKER" hang
wait_lines 4 'pid=' 30
agent=$(exe_pids_on "$AGENT" h2 | tail -n1)
[ -n "$agent" ] || fail "no hvd-agent found on h2"
kill -KILL "$agent"
wait_exit "$JOB_PID" 30
[ "$RC" -ne 0 ] || fail "hvdrun exited 0 after h2's agent was killed"
grep -q "h2" <<<"$ERR" || { echo "$ERR"; fail "the error does not name h2"; }
expect_no_job_on 15 h1 h2
pass "SIGKILL of h2's agent -> exit $RC in ${ELAPSED}s naming h2; nothing left on h1 or h2"
