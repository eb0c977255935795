#!/usr/bin/env bash
# An elastic job end to end on one host with the runtime's test worker (hvd_elastic_worker): -H localhost:3
# --min-np 2, commits every 5 steps, the worker of rank 2 SIGKILLed between two commits (it holds before step 13;
# rank 0's last commit was step 10 and the others wait in step 13's allreduce). Its slot leaves, the two survivors
# are reset in process (not restarted), go back to the commit and start generation 1 at step 10 exactly, and
# finish: exit 0, the committed step never goes backwards, and both survivors end with the parameters of an
# undisturbed run. Prints the benchmark figure: seconds from the worker's death to training resumed (rank 0's
# start line of the new generation: the job re-formed and the commit restored and synced).
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/elastic_lib.bash"
cd "$TEST_TMP"
STEPS=150
reference_checksum "$STEPS"

: >"$TEST_TMP/out"
"$HVDRUN" --prefix-timestamp -H localhost:3 --min-np 2 "$ELASTIC_WORKER" --steps "$STEPS" --commit-every 5 \
  --step-ms 40 --hold-rank 2 --hold-at-step 12 >"$TEST_TMP/out" 2>"$TEST_TMP/err" &
JOB=$!
background_job "$JOB"
# Rank 2 (slot localhost/2) is the victim: rank 0 stays one process, so its commit lines stay in order.
wait_lines 1 "\[2\]<stdout>:elastic_worker holding step=12 rank=2 pid=[0-9]+$" 30
pid=$(sed -nE 's/.*\[2\]<stdout>:elastic_worker holding step=12 rank=2 pid=([0-9]+)$/\1/p' "$TEST_TMP/out")
tr '\0' '\n' <"/proc/$pid/environ" | grep -qx 'HVD_WORKER_ID=localhost/2' || fail "the holding worker $pid is not slot localhost/2's"
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
expect_one_reset 10 2
pass "commits strictly increase to $STEPS; killed at step 12, both survivors resumed at the commit of step 10"

expect_final_checksums 2 "$STEPS" 2
pass "both survivors finished with checksum $REFERENCE, the undisturbed run's"

figure "worker death to training resumed (-H localhost:3 --min-np 2, 40 ms steps)" "$killed_at" \
  "$(line_time "elastic_worker start generation=1 rank=0 ")"
