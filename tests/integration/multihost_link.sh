# Pulling h2's cable mid-run ends the job within 30 s with a message naming h2; once the cable is back no
# process of the job remains on h2 (its agent lost the launcher and killed its workers).
source "$(dirname "$0")/multihost_lib.bash"

h0_hvdrun_bg -np 4 -H h1:2,h2:2 --kill-grace 2 "$WORKER" hang
wait_lines 4 'pid=' 30
"$NETNS" link h2 down
wait_exit "$JOB_PID" 30
[ "$RC" -ne 0 ] || fail "hvdrun exited 0 after h2's link went down"
grep -q "h2" <<<"$ERR" || { echo "$ERR"; fail "the error does not name h2"; }
pass "link h2 down -> hvdrun exit $RC after ${ELAPSED}s: $(grep h2 <<<"$ERR" | head -1)"
expect_no_job_on 10 h1
"$NETNS" link h2 up
expect_no_job_on 30 h2
pass "after link h2 up nothing of the job remains on h1 or h2"
