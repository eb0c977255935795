# Elastic, worker side: a peer that stops answering without closing its sockets (SIGSTOP: what a host that loses
# power or its link looks like to the others; the kernel even keeps ACKing). Nothing on the data plane can notice
# it; only hvdrun's "reset" event can. The survivors' runtime must abort the allreduce blocked on that peer
# (shut the TCP sockets down / interrupt the shared-memory wait), re-form, and finish. Over TCP (one host per
# worker) and over shared memory (one host).
source "$(dirname "$0")/elastic_runtime_lib.bash"

STEPS=40
for mode in tcp shm; do
  hosts=()
  [ $mode = tcp ] && hosts=(--host-per-worker)
  start_driver 3 "${hosts[@]}" --steps $STEPS --commit-every 5 --step-ms 30
  wait_line "localhost/0: elastic_worker commit step=15 " 30
  victim=$(sed -nE 's/.*worker localhost\/2 pid ([0-9]+)$/\1/p' "$LOG")
  kill -STOP "$victim"
  wait_line "elastic_worker start generation=1 " 30
  finish_driver
  for w in 0 1; do
    grep -q "worker localhost/$w exited code 0" "$LOG" || { tail -n 30 "$LOG"; fail "$mode: localhost/$w did not exit 0"; }
  done
  expect_done $STEPS 2
  check_commits_monotonic
  lost=$(line_time "worker localhost/2 stopped")
  resumed=$(line_time "elastic_worker start generation=1 ")
  pass "$mode: the survivors left an allreduce blocked on a silent peer and finished ($((resumed - lost)) ms from the loss to training resumed)"
done
