#!/usr/bin/env bash
# An elastic job end to end on one host with the runtime's test worker (hvd_elastic_worker): -H localhost:3
# --min-np 2, the worker of rank 2 SIGKILLed mid-run. Its slot leaves, the two survivors are reset in process
# (not restarted), resume from the last commit and finish: exit 0, the committed step never goes backwards, and
# both survivors end with the parameters of an undisturbed run. Prints the benchmark figure: seconds from the
# worker's death to training resumed (the first commit of the new generation).
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/elastic_lib.bash"
cd "$TEST_TMP"
STEPS=150
reference_checksum "$STEPS"

: >"$TEST_TMP/out"
"$HVDRUN" --prefix-timestamp -H localhost:3 --min-np 2 "$ELASTIC_WORKER" --steps "$STEPS" --step-ms 40 \
  >"$TEST_TMP/out" 2>"$TEST_TMP/err" &
JOB=$!
wait_lines 1 "elastic_worker commit step=10 size=3" 30
# Rank 2 (slot localhost/2) is the victim: rank 0 stays one process, so its commit lines stay in order.
pid=""
for p in $(pgrep -f "^[^ ]*hvd_elastic_worker --steps $STEPS --step-ms 40\$"); do
  tr '\0' '\n' <"/proc/$p/environ" | grep -q '^HVD_WORKER_ID=localhost/2$' && pid=$p
done
[ -n "$pid" ] || fail "no worker process for slot localhost/2"
killed_at=$(now)
kill -KILL "$pid"
wait_exit "$JOB" 60
expect_rc 0 "a 3-worker job that lost rank 2, --min-np 2"
expect_err "worker localhost/2 (rank 2 of generation 0) on localhost was killed by SIGKILL; taking slot localhost/2 out" \
  "the failed worker's slot is taken out"
grep -q "blacklisting" <<<"$ERR" && { echo "$ERR"; fail "the host was blacklisted for one worker's failure"; }
pass "rank 2 SIGKILLed: its slot out, the host kept, exit 0"

# The survivors were reset in process: workers 0 and 1 (no new ones) start generation 1 at size 2.
[ "$(grep -cE '\[[01]\]<stdout>:elastic_worker start generation=1 rank=[01] size=2 ' <<<"$OUT")" -eq 2 ] ||
  { grep start <<<"$OUT"; fail "the survivors did not start generation 1 of 2"; }
grep -qE '\[[3-9]\]<stdout>' <<<"$OUT" && fail "hvdrun started a new worker: the survivors should be reset in place"
pass "the two survivors were reset in process into generation 1 of size 2"

expect_commits_forward "$STEPS"
last_before=$(sed -n '/elastic_worker start generation=1/q; s/.*elastic_worker commit step=\([0-9]*\) .*/\1/p' <<<"$OUT" | tail -1)
resumed=$(sed -n 's/.*elastic_worker start generation=1 rank=0 size=2 step=\([0-9]*\).*/\1/p' <<<"$OUT")
[ "$resumed" -ge "$last_before" ] || fail "generation 1 resumed at step $resumed, before the commit of $last_before"
pass "commits strictly increase to $STEPS; generation 1 resumed at step $resumed (the last commit before: $last_before)"

expect_final_checksums 2 "$STEPS" 2
pass "both survivors finished with checksum $REFERENCE, the undisturbed run's"

figure "worker death to training resumed (-H localhost:3 --min-np 2, 40 ms steps)" "$killed_at" \
  "$(line_time "elastic_worker commit step=$((resumed + 1)) size=2")"
