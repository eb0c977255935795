# Elastic, worker side: one of 3 workers is SIGKILLed mid-run. The other two are not restarted (the driver spawned
# 3 processes in all, the survivors print a second start line): their runtime aborts the allreduce in flight on the
# "reset" event, re-forms in process as a job of 2, goes on from the last commit, and both finish with the checksum
# of an uninterrupted run. Prints what the reset cost (the death to the new generation's first step).
source "$(dirname "$0")/elastic_runtime_lib.bash"

STEPS=60
start_driver 3 --steps $STEPS --commit-every 5 --step-ms 30
wait_line "localhost/0: elastic_worker commit step=20 " 30
victim=$(sed -nE 's/.*worker localhost\/1 pid ([0-9]+)$/\1/p' "$LOG")
survivors=$(sed -nE 's/.*worker localhost\/(0|2) pid ([0-9]+)$/\2/p' "$LOG")
kill -KILL "$victim"
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
check_commits_monotonic
pass "the committed step never went backwards"

expect_done $STEPS 2
pass "both survivors finished at step $STEPS with the uninterrupted run's checksum $(static_checksum $STEPS)"

died=$(line_time "worker localhost/1 exited signal 9")
formed=$(line_time "generation 1 size")
resumed=$(line_time "elastic_worker start generation=1 ")
echo "reset cost (shared memory): death to generation formed $((formed - died)) ms, to training resumed (state synced) $((resumed - died)) ms"
