# --reset-limit N: an elastic job may be re-formed N times; the reset after that fails the job with exit 7 and one
# line naming the flag, and no worker outlives hvdrun. Single host, workers are elastic_probe (the store protocol
# without the runtime), each failure a worker SIGKILLed (its slot leaves, --min-np 1 keeps the job going).
source "$(dirname "$0")/lib.bash"
PROBE="$HVD_BIN/elastic_probe"
[ -x "$PROBE" ] || fail "build elastic_probe first"
cd "$TEST_TMP"

# start_job ARGS...: hvdrun in the background, output in $TEST_TMP/out and err; JOB is its pid.
start_job() {
  : >"$TEST_TMP/out"
  "$HVDRUN" "$@" >"$TEST_TMP/out" 2>"$TEST_TMP/err" &
  JOB=$!
  background_job "$JOB"
}
# kill_slot SLOT: SIGKILLs the probe of slot localhost/SLOT (read from its environment).
kill_slot() {
  local pid victim=""
  for pid in $(pgrep -f "^[^ ]*elastic_probe 3000 100\$"); do
    tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qx "HVD_WORKER_ID=localhost/$1" && victim=$pid
  done
  [ -n "$victim" ] || fail "no probe in slot localhost/$1"
  kill -KILL "$victim"
}
# wait_job_lines N PATTERN: wait_lines, failing at once when hvdrun ends first (a reset refused too early).
wait_job_lines() {
  local deadline=$((SECONDS + 30))
  while [ "$(grep -cE -- "$2" "$TEST_TMP/out" || true)" -lt "$1" ]; do
    alive "$JOB" || { cat "$TEST_TMP/out" "$TEST_TMP/err"; fail "hvdrun ended before $1 lines like '$2'"; }
    [ $SECONDS -lt $deadline ] || { cat "$TEST_TMP/out" "$TEST_TMP/err"; fail "no $1 lines like '$2' after 30 s"; }
    sleep 0.1
  done
}

# --reset-limit 1: the first reset is allowed (generation 1 of 2 forms), the second fails the job.
start_job -H localhost:3 --min-np 1 --reset-limit 1 "$PROBE" 3000 100
wait_job_lines 3 "generation=0 rank=[0-2] size=3$"
kill_slot 2
wait_job_lines 2 "generation=1 rank=[01] size=2$"
kill_slot 1
wait_exit "$JOB" 30
expect_rc 7 "the second reset past --reset-limit 1"
expect_err "hvdrun: reset 2 of the job is more than --reset-limit 1 allows; raise --reset-limit or fix what keeps failing" \
  "the failure names --reset-limit"
[ "$(grep -c "more than --reset-limit" <<<"$ERR")" -eq 1 ] || { echo "$ERR"; fail "the --reset-limit failure was reported more than once"; }
grep -q "generation=2" <<<"$OUT" && fail "generation 2 formed past --reset-limit 1"
wait_gone 10 $(pgrep -f "^[^ ]*elastic_probe 3000 100\$" || true)
pass "--reset-limit 1: one reset allowed, the second ends the job with exit 7 naming the flag; no worker left"

# --reset-limit 0: the first reset already fails the job.
start_job -H localhost:2 --min-np 1 --reset-limit 0 "$PROBE" 3000 100
wait_job_lines 2 "generation=0 rank=[01] size=2$"
kill_slot 1
wait_exit "$JOB" 30
expect_rc 7 "a reset with --reset-limit 0"
expect_err "hvdrun: reset 1 of the job is more than --reset-limit 0 allows; raise --reset-limit or fix what keeps failing" \
  "the failure names --reset-limit"
grep -q "generation=1" <<<"$OUT" && fail "generation 1 formed with --reset-limit 0"
wait_gone 10 $(pgrep -f "^[^ ]*elastic_probe 3000 100\$" || true)
pass "--reset-limit 0: the first reset ends the job with exit 7"
