# Pulling h2's cable mid-run ends the job within 30 s with exit 4 and one message naming h2 (no heartbeat from its
# agent for 10 s: README, "Exit codes"); once the cable is back no process of the job remains on h2 (its agent lost
# the launcher and killed its workers).
source "$(dirname "$0")/multihost_lib.bash"

h0_hvdrun_bg -np 4 -H h1:2,h2:2 --kill-grace 2 "$WORKER" hang
wait_lines 4 'pid=' 30
"$NETNS" link h2 down
wait_exit "$JOB_PID" 30
expect_rc 4 "h2's link down (an agent lost while the job ran)"
grep -qx 'hvdrun: lost the agent on h2 (no heartbeat for 10 s); stopping the job on every host' <<<"$ERR" ||
  { echo "$ERR"; fail "no line 'hvdrun: lost the agent on h2 (no heartbeat for 10 s); stopping the job on every host'"; }
pass "link h2 down -> hvdrun exit 4 after ${ELAPSED}s: lost the agent on h2 (no heartbeat for 10 s)"
expect_no_job_on 10 h1
"$NETNS" link h2 up
expect_no_job_on 30 h2
pass "after link h2 up nothing of the job remains on h1 or h2"
