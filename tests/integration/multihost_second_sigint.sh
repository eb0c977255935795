# A second Ctrl-C on a 2-host job: every agent SIGKILLs its workers at once (children of the workers that ignore
# SIGTERM and SIGINT included) and confirms before hvdrun exits 130, within SECOND_SIGINT_BOUND_MS of the second
# SIGINT (the 3 s wait of docs/hvdrun.md for confirmations plus slack; lib.bash), so nothing is left on any host. With one
# host unreachable, hvdrun still exits 130 within that bound, and that host's agent kills its workers when it
# loses hvdrun.
source "$(dirname "$0")/multihost_lib.bash"

tag="93.$$"
# job_left HOST...: pids of the workers' sleeps (tagged) still on those hosts.
job_left() { pids_on -F "sleep $tag" -- "$@"; }
workers_started() { [ "$(grep -c started "$TEST_TMP/out" || true)" -ge 2 ] && [ "$(job_left h1 h2 | wc -l)" -ge 2 ]; }

# second_sigint WHAT: SIGINT to hvdrun, a second one once hvdrun has taken the first (its own line), then hvdrun
# must exit 130 within the bound, measured from the second SIGINT; sets ELAPSED_MS.
second_sigint() {
  kill -INT "$JOB_PID"
  wait_lines 1 '^hvdrun: received SIGINT; stopping the job on every host$' 30 "$TEST_TMP/err"
  local second
  second=$(now_ms)
  kill -INT "$JOB_PID"
  wait_exit "$JOB_PID" 30
  ELAPSED_MS=$(($(now_ms) - second))
  [ "$RC" -eq 130 ] || { echo "$ERR"; fail "$1: hvdrun exited $RC, expected 130"; }
  grep -qx "hvdrun: SIGINT again; killing every worker now" <<<"$ERR" || { echo "$ERR"; fail "$1: no message for the second SIGINT"; }
  [ "$ELAPSED_MS" -lt "$SECOND_SIGINT_BOUND_MS" ] ||
    fail "$1: hvdrun exited ${ELAPSED_MS} ms after the second SIGINT (bound ${SECOND_SIGINT_BOUND_MS} ms)"
}

h0_hvdrun_bg -np 2 -H h1:1,h2:1 --kill-grace 8 sh -c "trap '' TERM INT; echo started; sleep $tag"
deadline=$((SECONDS + 30))
until workers_started; do [ $SECONDS -lt $deadline ] || fail "workers did not start: $(cat "$TEST_TMP/err")"; sleep 0.1; done
second_sigint "second SIGINT"
wait_none 10 "second SIGINT: the workers' sleeps on the hosts" job_left h0 h1 h2
expect_no_job_on 5 h0 h1 h2
pass "second SIGINT -> exit 130 ${ELAPSED_MS} ms after it (kill grace 8 s), nothing left on h1, h2 ${WAITED_MS} ms later"

# h2 unreachable when the signals come: hvdrun cannot reach its agent and does not wait for it past 3 s; that agent
# hears nothing from hvdrun for the heartbeat timeout (10 s) and stops its workers (SIGTERM, SIGKILL after the grace).
h0_hvdrun_bg -np 2 -H h1:1,h2:1 --kill-grace 2 sh -c "trap '' TERM INT; echo started; sleep $tag"
deadline=$((SECONDS + 30))
until workers_started; do [ $SECONDS -lt $deadline ] || fail "workers did not start: $(cat "$TEST_TMP/err")"; sleep 0.1; done
"$NETNS" link h2 down
second_sigint "second SIGINT, h2 unreachable"
wait_none 10 "second SIGINT, h2 unreachable: the workers' sleeps on h1" job_left h1
start=$SECONDS
expect_no_job_on 25 h2
pass "h2 unreachable: hvdrun exited 130 ${ELAPSED_MS} ms after the second SIGINT; h1 clean, h2's agent cleaned up $((SECONDS - start))s later"
"$NETNS" link h2 up
