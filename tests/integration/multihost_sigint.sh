# Ctrl-C (SIGINT) to hvdrun running a 2-host job exits 130 and leaves no process of the job on any host; so does
# SIGKILL of hvdrun (the agents see their SSH channel close).
source "$(dirname "$0")/multihost_lib.bash"

h0_hvdrun_bg -np 4 -H h1:2,h2:2 --kill-grace 2 "$WORKER" hang
wait_lines 4 'pid=' 30
kill -INT "$JOB_PID"
wait_exit "$JOB_PID" 30
[ "$RC" -eq 130 ] || { echo "$ERR"; fail "SIGINT: hvdrun exited $RC, expected 130"; }
expect_no_job_on 15 h0 h1 h2
pass "SIGINT -> exit 130 in ${ELAPSED}s, nothing left on h0, h1, h2"

# hvdrun killed outright: its SSH connections close, each agent sees EOF on stdin and kills its workers.
h0_hvdrun_bg -np 4 -H h1:2,h2:2 --kill-grace 2 "$WORKER" hang
wait_lines 4 'pid=' 30
kill -KILL "$JOB_PID"
wait "$JOB_PID" 2>/dev/null || true
expect_no_job_on 15 h0 h1 h2
pass "SIGKILL of hvdrun -> nothing left on h0, h1, h2"
