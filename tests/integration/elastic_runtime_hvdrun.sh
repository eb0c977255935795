# Elastic, worker side under the real hvdrun (netns hosts h1, h2): 3 workers (h1:2, h2:1), the one on h2 SIGKILLed
# mid-run. hvdrun blacklists h2 and announces a reset; the two workers on h1 are not restarted (same pids: each
# prints a second start line), re-form as a job of 2 and finish with the checksum of an uninterrupted run; rank 0's
# committed step never goes backwards. Prints the time from the kill to training resumed.
"${HVD_BIN:?}/hvdrun" --help 2>&1 | grep -q -- "--min-np" || { echo "SKIP: this hvdrun has no elastic mode (--min-np)"; exit 77; }
source "$(dirname "$0")/multihost_lib.bash"
ELASTIC_WORKER="$HVD_BIN/hvd_elastic_worker"
STEPS=80

h0_hvdrun_bg -H h1:2,h2:1 --min-np 2 "$ELASTIC_WORKER" --steps $STEPS --commit-every 5 --step-ms 50
wait_lines 1 "\[0\]<stdout>:elastic_worker commit step=20 " 60
victim=$(exe_pids_on "$ELASTIC_WORKER" h2 | tail -n1)
[ -n "$victim" ] || fail "no hvd_elastic_worker found on h2"
survivors=$(exe_pids_on "$ELASTIC_WORKER" h1 | xargs)
[ "$(wc -w <<<"$survivors")" -eq 2 ] || fail "expected 2 hvd_elastic_worker processes on h1, found '$survivors'"
killed_at=$(date +%s%N)
kill -KILL "$victim"
wait_lines 2 "elastic_worker start generation=[1-9][0-9]* rank=[01] size=2 " 60
resumed_at=$(date +%s%N)
wait_exit "$JOB_PID" 90
expect_rc 0 "the job after h2's worker was killed"

for p in $survivors; do
  [ -e "/proc/$p" ] && fail "survivor $p still running after the job"
done
n=$(grep -c "elastic_worker done step=$STEPS rank=[01] size=2 " <<<"$OUT" || true)
[ "$n" -eq 2 ] || { echo "$OUT" | tail -20; echo "$ERR" | tail -20; fail "expected 2 done lines at size 2, got $n"; }
starts=$(grep -c "elastic_worker start generation=" <<<"$OUT")
[ "$starts" -eq 5 ] || { echo "$OUT" | grep start; fail "expected 5 start lines (3 + the 2 survivors again), got $starts"; }
pass "the 2 workers on h1 (pids $survivors) reset in process and finished at size 2"

awk '/elastic_worker commit step=/ { split($0, a, "step="); s = a[2] + 0; if (s < last) bad = 1; last = s }
     /elastic_worker start generation=/ { split($0, a, "step="); if (a[2] + 0 < last) bad = 1 }
     END { exit bad }' <<<"$OUT" || { echo "$OUT" | grep -E "commit|start"; fail "the committed step went backwards"; }
expected=$("$ELASTIC_WORKER" --steps $STEPS --commit-every 1000000 | sed -nE 's/.*checksum=([0-9a-f]+).*/\1/p')
sums=$(sed -nE "s/.*elastic_worker done step=$STEPS rank=[01] size=2 checksum=([0-9a-f]+)$/\1/p" <<<"$OUT" | sort -u)
[ "$sums" = "$expected" ] || fail "final checksums '$sums' differ from the uninterrupted run's $expected"
pass "the committed step never went backwards; both finished with the uninterrupted run's checksum"
echo "reset under hvdrun: SIGKILL on h2 to training resumed on h1 in $(((resumed_at - killed_at) / 1000000)) ms (as seen through hvdrun's output)"
