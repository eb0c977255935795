# A worker failing on h2 stops h1's workers and hvdrun returns h2's code; a crash (SIGSEGV) on h2 gives 139.
# SIGKILL of h2's agent ends the job with exit 4 and one message naming h2 (README, "Exit codes": an agent lost
# while the job ran), and leaves nothing behind anywhere.
source "$(dirname "$0")/multihost_lib.bash"

# Rank 3 (on h2) exits 7 once the others hang (test_worker fail: they print their pids, then leave markers in
# this directory, which the hosts share); they hang until stopped.
h0_hvdrun 60 -np 4 -H h1:2,h2:2 --kill-grace 2 "$WORKER" fail 3 7 "$TEST_TMP"
expect_rc 7 "rank 3 on h2 exits 7"
grep -qE '^hvdrun: rank 3 on h2 \(pid [0-9]+\) exited with code 7$' <<<"$ERR" || { echo "$ERR"; fail "no line 'hvdrun: rank 3 on h2 (pid N) exited with code 7'"; }
[ "$(grep -c '<stdout>:pid=' <<<"$OUT")" -eq 3 ] || { echo "$OUT"; fail "expected ranks 0, 1 and 2 hanging when rank 3 failed"; }
expect_no_job_on 10 h1 h2
pass "exit 7 on h2 -> hvdrun exits 7 naming rank 3 on h2, h1's workers stopped, nothing left (${ELAPSED}s)"

h0_hvdrun 60 -np 4 -H h1:2,h2:2 --kill-grace 2 "$WORKER" crash 3 "$TEST_TMP"
expect_rc 139 "rank 3 on h2 crashes"
grep -qE '^hvdrun: rank 3 on h2 \(pid [0-9]+\) was killed by SIGSEGV$' <<<"$ERR" || { echo "$ERR"; fail "no line 'hvdrun: rank 3 on h2 (pid N) was killed by SIGSEGV'"; }
expect_no_job_on 10 h1 h2
pass "SIGSEGV on h2 -> hvdrun exits 139 naming rank 3 on h2, nothing left"

# SIGKILL of h2's agent while the job runs.
h0_hvdrun_bg -np 4 -H h1:2,h2:2 --kill-grace 2 "$WORKER" hang
wait_lines 4 'pid=' 30
agent=$(exe_pids_on "$AGENT" h2)
[ "$(wc -w <<<"$agent")" -eq 1 ] || fail "expected one hvd-agent on h2, found: '$agent'"
kill -KILL "$agent"
wait_exit "$JOB_PID" 30
expect_rc 4 "h2's agent SIGKILLed (an agent lost while the job ran)"
# Its link closes as the kernel closes the killed agent's socket: FIN, or RST when it held unread heartbeats.
lost=$(grep -E '^hvdrun: lost the agent on h2 \((connection closed by peer|Connection reset by peer)\); stopping the job on every host$' <<<"$ERR") ||
  { echo "$ERR"; fail "no line 'hvdrun: lost the agent on h2 (connection closed by peer); stopping the job on every host'"; }
[ "$(grep -c '^hvdrun: lost the agent' <<<"$ERR")" -eq 1 ] || { echo "$ERR"; fail "expected one 'hvdrun: lost the agent' line"; }
expect_no_job_on 15 h1 h2
pass "SIGKILL of h2's agent -> exit 4 in ${ELAPSED}s: '$lost'; nothing left on h1 or h2"
