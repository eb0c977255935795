# A second Ctrl-C on a 2-host job: every agent SIGKILLs its workers at once (children of the workers that ignore
# SIGTERM and SIGINT included) and confirms before hvdrun exits, so nothing is left on any host 2 s after hvdrun
# exits. With one host unreachable, that host's agent still kills its workers when it loses hvdrun.
source "$(dirname "$0")/multihost_lib.bash"

tag="93.$$"
# job_left HOST...: pids of the workers' sleeps (tagged) still on those hosts.
job_left() { pids_on -F "sleep $tag" -- "$@"; }
workers_started() { [ "$(grep -c started "$TEST_TMP/out" || true)" -ge 2 ] && [ "$(job_left h1 h2 | wc -l)" -ge 2 ]; }

h0_hvdrun_bg -np 2 -H h1:1,h2:1 --kill-grace 8 sh -c "trap '' TERM INT; echo started; sleep $tag"
deadline=$((SECONDS + 30))
until workers_started; do [ $SECONDS -lt $deadline ] || fail "workers did not start: $(cat "$TEST_TMP/err")"; sleep 0.1; done
kill -INT "$JOB_PID"
sleep 0.5
kill -INT "$JOB_PID"
wait_exit "$JOB_PID" 30
[ "$RC" -eq 130 ] || { echo "$ERR"; fail "second SIGINT: hvdrun exited $RC, expected 130"; }
sleep 2
left=$(job_left h0 h1 h2)
[ -z "$left" ] || fail "second SIGINT: still alive on the hosts 2 s after hvdrun exited: $left"
expect_no_job_on 5 h0 h1 h2
pass "second SIGINT -> exit 130 in ${ELAPSED}s (kill grace 8 s), nothing left on h1, h2 2 s later"

# h2 unreachable when the signals come: hvdrun cannot reach its agent and does not wait for it; that agent hears
# nothing from hvdrun for the heartbeat timeout (10 s) and stops its workers (SIGTERM, SIGKILL after the grace).
h0_hvdrun_bg -np 2 -H h1:1,h2:1 --kill-grace 2 sh -c "trap '' TERM INT; echo started; sleep $tag"
deadline=$((SECONDS + 30))
until workers_started; do [ $SECONDS -lt $deadline ] || fail "workers did not start: $(cat "$TEST_TMP/err")"; sleep 0.1; done
"$NETNS" link h2 down
kill -INT "$JOB_PID"
sleep 0.5
kill -INT "$JOB_PID"
wait_exit "$JOB_PID" 30
[ "$RC" -eq 130 ] || { echo "$ERR"; fail "second SIGINT, h2 unreachable: hvdrun exited $RC, expected 130"; }
sleep 2
left=$(job_left h1)
[ -z "$left" ] || fail "second SIGINT, h2 unreachable: still alive on h1 2 s after hvdrun exited: $left"
start=$SECONDS
expect_no_job_on 25 h2
pass "h2 unreachable: hvdrun exited 130 in ${ELAPSED}s; h1 clean at once, h2's agent cleaned up $((SECONDS - start + 2))s after"
"$NETNS" link h2 up
