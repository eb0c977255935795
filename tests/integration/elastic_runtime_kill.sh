# Elastic, worker side: one of 3 workers is SIGKILLed between two commits (commits every 5 steps; rank 1 holds
# before step 23, rank 0's last commit was step 20 and the others wait in step 23's allreduce, parameters already
# decayed). The other two are not restarted (the driver spawned 3 processes in all, the survivors print a second
# start line): their runtime aborts the allreduce in flight on the "reset" event, restores the commit, re-forms in
# process as a job of 2 and both start generation 1 at step 20 exactly, then finish with the checksum of an
# uninterrupted run (which they reach only if the rollback undid the cut-short step). Prints what the reset cost
# (the death to the new generation's first step).
source "$(dirname "$0")/elastic_runtime_lib.bash"

STEPS=60
reference_checksum $STEPS
start_driver 3 --steps $STEPS --commit-every 5 --step-ms 30 --hold-rank 1 --hold-at-step 22
wait_held 1 1 22
survivors=$(sed -nE 's/.*worker localhost\/(0|2) pid ([0-9]+)$/\2/p' "$LOG")
kill -KILL "$HELD_PID"
wait_line "elastic_worker start generation=1 " 30
finish_driver

[ "$(grep -c ' worker localhost/[0-9]* pid ' "$LOG")" -eq 3 ] || fail "the driver started more than 3 workers"
grep -q "worker localhost/1 exited signal 9" "$LOG" || fail "the victim did not die of SIGKILL"
for w in 0 2; do
  grep -q "worker localhost/$w exited code 0" "$LOG" || { tail -30 "$LOG"; fail "survivor localhost/$w did not exit 0"; }
  n=$(grep -c "localhost/$w: elastic_worker start " "$LOG")
  [ "$n" -eq 2 ] || fail "survivor localhost/$w started training $n times, expected 2 (once per generation)"
done
pass "the survivors (pids $(echo $survivors)) reset in process and exited 0"

grep -q "localhost/0: elastic_worker start generation=1 rank=0 size=2 step=" "$LOG" || fail "no generation 1 of size 2"
expect_one_reset 20 2
pass "killed at step 22, both survivors went back to the commit of step 20 and started generation 1 there"

expect_final_checksums 2 $STEPS 2
pass "both survivors finished at step $STEPS with the uninterrupted run's checksum $REFERENCE"

died=$(driver_time "worker localhost/1 exited signal 9")
formed=$(driver_time "generation 1 size")
resumed=$(driver_time "elastic_worker start generation=1 ")
echo "reset cost (shared memory): death to generation formed $((formed - died)) ms, to training resumed (state synced) $((resumed - died)) ms"
