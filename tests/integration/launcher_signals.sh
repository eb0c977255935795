# Ctrl-C (SIGINT) to hvdrun stops every worker and exits 130; SIGTERM 143; hvdrun killed by SIGKILL leaves no
# worker alive: each agent notices its launcher is gone and kills its workers.
source "$(dirname "$0")/lib.bash"

# start_job NP: starts hvdrun with hanging workers in the background; sets JOB_PID and WORKER_PIDS.
start_job() {
  : >"$TEST_TMP/out"  # exists before the loop below reads it, whenever the job starts writing
  "$HVDRUN" -np "$1" --kill-grace 2 "$WORKER" hang >"$TEST_TMP/out" 2>"$TEST_TMP/err" &
  JOB_PID=$!
  background_job "$JOB_PID"
  local deadline=$((SECONDS + 30))
  while [ "$(grep -c 'pid=' "$TEST_TMP/out" || true)" -lt "$1" ]; do
    [ $SECONDS -lt $deadline ] || fail "workers did not start: $(cat "$TEST_TMP/err")"
    sleep 0.1
  done
  WORKER_PIDS=$(grep -oE 'pid=[0-9]+' "$TEST_TMP/out" | cut -d= -f2)
}

for sig in INT TERM HUP; do
  start_job 4
  kill -s "$sig" "$JOB_PID"
  wait_exit "$JOB_PID" 30
  case $sig in INT) want=130 ;; TERM) want=143 ;; HUP) want=129 ;; esac
  [ "$RC" -eq "$want" ] || fail "SIG$sig: hvdrun exited $RC, expected $want"
  grep -qF "received SIG$sig" "$TEST_TMP/err" || fail "SIG$sig: no message: $(cat "$TEST_TMP/err")"
  wait_gone 10 $WORKER_PIDS
  pass "SIG$sig -> exit $want, every worker gone"
done

start_job 3
# hvdrun forks its one local agent (named hvd-agent); the check below needs it found.
agent_pids=$(pgrep -x -P "$JOB_PID" hvd-agent) || fail "no hvd-agent child of hvdrun ($JOB_PID) found"
[ "$(wc -w <<<"$agent_pids")" -eq 1 ] || fail "expected one local agent, found: $agent_pids"
[ "$(wc -w <<<"$WORKER_PIDS")" -eq 3 ] || fail "expected 3 worker pids, got: $WORKER_PIDS"
kill -KILL "$JOB_PID"
wait "$JOB_PID" 2>/dev/null || true
wait_gone 15 $WORKER_PIDS $agent_pids
pass "SIGKILL of hvdrun: its agent $agent_pids and 3 workers gone"

# A second Ctrl-C kills at once: workers that ignore SIGTERM and SIGINT are SIGKILLed without waiting out
# --kill-grace, hvdrun exits 130 within SECOND_SIGINT_BOUND_MS of it, and nothing of the job (the shells'
# children included) is left.
tag="93.$$"
: >"$TEST_TMP/out"
"$HVDRUN" -np 2 --kill-grace 8 sh -c "trap '' TERM INT; echo started; sleep $tag" >"$TEST_TMP/out" 2>"$TEST_TMP/err" &
JOB_PID=$!
background_job "$JOB_PID"
deadline=$((SECONDS + 30))
until [ "$(grep -c started "$TEST_TMP/out" || true)" -ge 2 ] && [ "$(pgrep -fc "sleep $tag" || true)" -ge 2 ]; do
  [ $SECONDS -lt $deadline ] || fail "workers did not start: $(cat "$TEST_TMP/err")"
  sleep 0.1
done
kill -INT "$JOB_PID"
# The second SIGINT only once hvdrun has taken the first (it is stopping the job, workers ignoring SIGTERM).
wait_lines 1 '^hvdrun: received SIGINT; stopping the job on every host$' 30 "$TEST_TMP/err"
second=$(now_ms)
kill -INT "$JOB_PID"
wait_exit "$JOB_PID" 30
elapsed_ms=$(($(now_ms) - second))
[ "$RC" -eq 130 ] || fail "second SIGINT: hvdrun exited $RC, expected 130: $(cat "$TEST_TMP/err")"
[ "$elapsed_ms" -lt "$SECOND_SIGINT_BOUND_MS" ] ||
  fail "second SIGINT: hvdrun exited ${elapsed_ms} ms after it (bound ${SECOND_SIGINT_BOUND_MS} ms), as if it waited out --kill-grace 8"
grep -qx "hvdrun: SIGINT again; killing every worker now" "$TEST_TMP/err" || fail "no message for the second SIGINT"
wait_none 10 "the workers' children (sleep $tag) after the second SIGINT" pgrep -f "sleep $tag"
pass "second SIGINT -> exit 130 ${elapsed_ms} ms after it (kill grace 8 s), nothing left ${WAITED_MS} ms after hvdrun exited"
