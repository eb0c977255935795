# Elastic, worker side under the real hvdrun on one host: the discovery script grows localhost from 2 slots to 3.
# hvdrun announces hosts_updated; the 2 running workers (same pids: a second start line each) interrupt at the same
# commit and re-form in process with the new one, which receives the committed state through State::sync: all 3
# start generation 1 at rank 0's last commit and finish with the checksum of an uninterrupted run.
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/elastic_lib.bash"
STEPS=160  # the join (discovery period + start) must land well before the end
reference_checksum $STEPS
cat >"$TEST_TMP/discover.sh" <<SCRIPT
#!/bin/sh
if [ -e "$TEST_TMP/grow" ]; then echo localhost:3; else echo localhost:2; fi
SCRIPT
chmod +x "$TEST_TMP/discover.sh"

: >"$TEST_TMP/out"
timeout -k 5 90 "$HVDRUN" -np 2 --min-np 2 --host-discovery-script "$TEST_TMP/discover.sh" \
  "$ELASTIC_WORKER" --steps $STEPS --commit-every 5 --step-ms 50 >"$TEST_TMP/out" 2>"$TEST_TMP/err" &
job=$!
background_job "$job"
wait_lines 1 "\[0\]<stdout>:elastic_worker commit step=20 " 60
touch "$TEST_TMP/grow"
wait_exit "$job" 90
expect_rc 0 "the job that grew from 2 workers to 3"

[ "$(grep -c "elastic_worker start generation=0 " <<<"$OUT")" -eq 2 ] || fail "expected 2 workers in generation 0"
steps=$(sed -nE 's/.*elastic_worker start generation=1 rank=[0-2] size=3 step=([0-9]+)$/\1/p' <<<"$OUT" | sort -u)
[ "$(grep -c . <<<"$steps")" -eq 1 ] && [ "$steps" -ge 20 ] ||
  { echo "$OUT" | grep start; fail "generation 1 of 3 did not start at one step: '$(echo $steps)'"; }
expect_one_reset "$steps" 3
pass "the new worker joined; all 3 started at rank 0's last commit, step $steps"

expect_commits_forward $STEPS
expect_final_checksums 3 $STEPS 3
pass "all 3 finished with the uninterrupted run's checksum $REFERENCE"
