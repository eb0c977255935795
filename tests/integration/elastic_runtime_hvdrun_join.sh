# Elastic, worker side under the real hvdrun on one host: the discovery script grows localhost from 2 slots to 3.
# hvdrun announces hosts_updated; the 2 running workers (same pids: a second start line each) interrupt at the same
# commit and re-form in process with the new one, which receives the committed state through State::sync: all 3
# start generation 1 at one committed step and finish with the checksum of an uninterrupted run.
"${HVD_BIN:?}/hvdrun" --help 2>&1 | grep -q -- "--min-np" || { echo "SKIP: this hvdrun has no elastic mode (--min-np)"; exit 77; }
source "$(dirname "$0")/lib.bash"
ELASTIC_WORKER="$HVD_BIN/hvd_elastic_worker"
STEPS=160  # the join (discovery period + start) must land well before the end
cat >"$TEST_TMP/discover.sh" <<SCRIPT
#!/bin/sh
if [ -e "$TEST_TMP/grow" ]; then echo localhost:3; else echo localhost:2; fi
SCRIPT
chmod +x "$TEST_TMP/discover.sh"

timeout -k 5 90 "$HVDRUN" -np 2 --min-np 2 --host-discovery-script "$TEST_TMP/discover.sh" \
  "$ELASTIC_WORKER" --steps $STEPS --commit-every 5 --step-ms 50 >"$TEST_TMP/out" 2>"$TEST_TMP/err" &
job=$!
wait_lines 1 "\[0\]<stdout>:elastic_worker commit step=20 " 60
touch "$TEST_TMP/grow"
wait_exit "$job" 90
expect_rc 0 "the job that grew from 2 workers to 3"

steps=$(sed -nE 's/.*elastic_worker start generation=[1-9][0-9]* rank=[0-2] size=3 step=([0-9]+)$/\1/p' <<<"$OUT" | sort -u)
[ "$(grep -c "elastic_worker start generation=[1-9][0-9]* rank=[0-2] size=3 " <<<"$OUT")" -eq 3 ] &&
  [ "$(wc -l <<<"$steps")" -eq 1 ] && [ "$steps" -ge 20 ] || { echo "$OUT" | grep start; fail "generation 1 did not start at one committed step"; }
[ "$(grep -c "elastic_worker start generation=0 " <<<"$OUT")" -eq 2 ] || fail "expected 2 workers in generation 0"
pass "the new worker joined; all 3 started at the committed step $steps"

awk '/elastic_worker commit step=/ { split($0, a, "step="); s = a[2] + 0; if (s < last) bad = 1; last = s }
     END { exit bad }' <<<"$OUT" || fail "the committed step went backwards"
expected=$("$ELASTIC_WORKER" --steps $STEPS --commit-every 1000000 | sed -nE 's/.*checksum=([0-9a-f]+).*/\1/p')
sums=$(sed -nE "s/.*elastic_worker done step=$STEPS rank=[0-2] size=3 checksum=([0-9a-f]+)$/\1/p" <<<"$OUT" | sort -u)
[ "$(grep -c "elastic_worker done step=$STEPS " <<<"$OUT")" -eq 3 ] && [ "$sums" = "$expected" ] ||
  { echo "$OUT" | grep done; fail "final checksums '$sums', expected $expected on 3 ranks"; }
pass "all 3 finished with the uninterrupted run's checksum"
