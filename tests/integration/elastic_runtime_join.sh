# Elastic, worker side: a worker added to a running job of 2 ("hosts_updated"). Rank 0 hears the event, every
# rank interrupts at the same commit (hosts_updated() is rank 0's answer on all ranks), resets in process without
# restoring, and the new worker receives the committed state through State::sync: all 3 finish with the checksum of
# an uninterrupted run, and all 3 start generation 1 at the step of rank 0's last commit.
source "$(dirname "$0")/elastic_runtime_lib.bash"

STEPS=120  # the join must land well before the end, also on a loaded machine
reference_checksum $STEPS
start_driver 2 --steps $STEPS --commit-every 5 --step-ms 30
wait_line "localhost/0: elastic_worker commit step=20 " 30
kill -USR1 "$DRIVER_PID"
wait_line "elastic_worker start generation=1 " 30
finish_driver

grep -q "event 1 hosts_updated" "$LOG" || fail "the driver did not announce hosts_updated"
for w in 0 1 2; do
  grep -q "worker localhost/$w exited code 0" "$LOG" || { tail -30 "$LOG"; fail "worker localhost/$w did not exit 0"; }
done
steps=$(sed -nE 's/.*localhost\/[0-2]: elastic_worker start generation=1 rank=[0-2] size=3 step=([0-9]+)$/\1/p' "$LOG" | sort -u)
[ "$(grep -c . <<<"$steps")" -eq 1 ] && [ "$steps" -ge 20 ] || fail "generation 1 started at steps '$(echo $steps)'"
expect_one_reset "$steps" 3
pass "all 3 workers started generation 1 at rank 0's last commit, step $steps"

expect_final_checksums 3 $STEPS 3
pass "all 3 finished at step $STEPS with the uninterrupted run's checksum"

announced=$(driver_time "event 1 hosts_updated")
formed=$(driver_time "generation 1 size")
echo "join cost: hosts_updated to generation formed $((formed - announced)) ms (the workers finish the step and commit first)"
