# Elastic, worker side under the real hvdrun (netns hosts h1, h2): 3 workers (h1:2, h2:1), commits every 5 steps;
# the one on h2 (rank 2) holds before step 23 and is SIGKILLed there, between two commits (rank 0's last was step
# 20). hvdrun takes h2 out and announces a reset; the two workers on h1 are not restarted (same pids: each prints a
# second start line), go back to the commit, re-form as a job of 2 starting at step 20 exactly and finish with the
# checksum of an uninterrupted run; rank 0's committed step never goes backwards. Prints the time from the kill to
# training resumed.
here=$(cd "$(dirname "$0")" && pwd)  # multihost_lib.bash changes directory
source "$here/multihost_lib.bash"
source "$here/elastic_lib.bash"
STEPS=80
reference_checksum $STEPS

h0_hvdrun_bg -H h1:2,h2:1 --min-np 2 "$ELASTIC_WORKER" --steps $STEPS --commit-every 5 --step-ms 50 \
  --hold-rank 2 --hold-at-step 22
wait_lines 1 "<stdout>:elastic_worker holding step=22 rank=2 pid=[0-9]+$" 60
victim=$(sed -nE 's/.*<stdout>:elastic_worker holding step=22 rank=2 pid=([0-9]+)$/\1/p' "$TEST_TMP/out")
exe_pids_on "$ELASTIC_WORKER" h2 | grep -qx "$victim" || fail "the holding worker $victim is not h2's"
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
starts=$(grep -c "elastic_worker start generation=" <<<"$OUT")
[ "$starts" -eq 5 ] || { echo "$OUT" | grep start; fail "expected 5 start lines (3 + the 2 survivors again), got $starts"; }
pass "the 2 workers on h1 (pids $survivors) reset in process and finished at size 2"

expect_commits_forward $STEPS
expect_one_reset 20 2
pass "killed at step 22, both survivors went back to the commit of step 20; commits only went forward"
expect_final_checksums 2 $STEPS 2
pass "both finished with the uninterrupted run's checksum $REFERENCE"
echo "reset under hvdrun: SIGKILL on h2 to training resumed on h1 in $(((resumed_at - killed_at) / 1000000)) ms (as seen through hvdrun's output)"
