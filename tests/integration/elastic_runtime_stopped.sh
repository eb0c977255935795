# Elastic, worker side: a peer that stops answering without closing its sockets (SIGSTOP: what a host that loses
# power or its link looks like to the others; the kernel even keeps ACKing). Nothing on the data plane can notice
# it; only hvdrun's "reset" event can. The survivors' runtime must abort the allreduce blocked on that peer
# (shut the TCP sockets down / interrupt the shared-memory wait), go back to the last commit, re-form, and finish.
# The peer is stopped between two commits (it holds before step 18; the last commit was step 15), so the survivors
# must start generation 1 at step 15 exactly. Over TCP (one host per worker) and over shared memory (one host).
source "$(dirname "$0")/elastic_runtime_lib.bash"

STEPS=40
reference_checksum $STEPS
for mode in tcp shm; do
  hosts=()
  [ $mode = tcp ] && hosts=(--host-per-worker)
  start_driver 3 "${hosts[@]}" --steps $STEPS --commit-every 5 --step-ms 30 --hold-rank 2 --hold-at-step 17
  wait_held 2 2 17
  kill -STOP "$HELD_PID"
  wait_line "elastic_worker start generation=1 " 30
  finish_driver
  grep -q "worker localhost/2 stopped" "$LOG" || fail "$mode: the driver did not see localhost/2 stop"
  for w in 0 1; do
    grep -q "worker localhost/$w exited code 0" "$LOG" || { tail -n 30 "$LOG"; fail "$mode: localhost/$w did not exit 0"; }
  done
  expect_one_reset 15 2 "$mode"
  expect_final_checksums 2 $STEPS 2
  lost=$(driver_time "worker localhost/2 stopped")
  resumed=$(driver_time "elastic_worker start generation=1 ")
  pass "$mode: the survivors left an allreduce blocked on a silent peer, went back to the commit of step 15 and finished ($((resumed - lost)) ms from the loss to training resumed)"
done
