# Ctrl-C (SIGINT) to hvdrun stops every worker and exits 130; SIGTERM 143; hvdrun killed by SIGKILL leaves no
# worker alive: each agent notices its launcher is gone and kills its workers.
source "$(dirname "$0")/lib.bash"

# start_job NP: starts hvdrun with hanging workers in the background; sets JOB_PID and WORKER_PIDS.
start_job() {
  : >"$TEST_TMP/out"  # exists before the loop below reads it, whenever the job starts writing
  "$HVDRUN" -np "$1" --kill-grace 2 "$WORKER" hang >"$TEST_TMP/out" 2>"$TEST_TMP/err" &
  JOB_PID=$!
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
agent_pids=$(pgrep -P "$JOB_PID" hvd-agent || true)
kill -KILL "$JOB_PID"
wait "$JOB_PID" 2>/dev/null || true
wait_gone 15 $WORKER_PIDS $agent_pids
pass "SIGKILL of hvdrun: every worker and agent gone"

# A second Ctrl-C kills at once: workers that ignore SIGTERM and SIGINT are SIGKILLed without waiting out
# --kill-grace, and nothing of the job (the shells' children included) is left 2 s after hvdrun exits.
tag="93.$$"
: >"$TEST_TMP/out"
"$HVDRUN" -np 2 --kill-grace 8 sh -c "trap '' TERM INT; echo started; sleep $tag" >"$TEST_TMP/out" 2>"$TEST_TMP/err" &
JOB_PID=$!
deadline=$((SECONDS + 30))
until [ "$(grep -c started "$TEST_TMP/out" || true)" -ge 2 ] && [ "$(pgrep -fc "sleep $tag" || true)" -ge 2 ]; do
  [ $SECONDS -lt $deadline ] || fail "workers did not start: $(cat "$TEST_TMP/err")"
  sleep 0.1
done
start=$SECONDS
kill -INT "$JOB_PID"
sleep 0.5
kill -INT "$JOB_PID"
wait_exit "$JOB_PID" 30
elapsed=$((SECONDS - start))
[ "$RC" -eq 130 ] || fail "second SIGINT: hvdrun exited $RC, expected 130: $(cat "$TEST_TMP/err")"
[ "$elapsed" -lt 6 ] || fail "second SIGINT: hvdrun took ${elapsed}s, as if it waited out --kill-grace 8"
grep -qF "SIGINT again; killing every worker now" "$TEST_TMP/err" || fail "no message for the second SIGINT"
sleep 2
left=$(pgrep -f "sleep $tag" || true)
[ -z "$left" ] || fail "second SIGINT: workers' children still alive 2 s after hvdrun exited: $left"
pass "second SIGINT -> exit 130 in ${elapsed}s (kill grace 8 s), nothing left 2 s later"
