# The end-to-end check both elastic Fashion-MNIST examples share (sourced after lib.bash; not a test itself):
# an elastic job on -H localhost:3 --min-np 2 loses one worker to SIGKILL mid-training, and the two survivors are
# reset in process (not restarted), go on at size 2 and finish every step with bitwise identical parameters.
# The examples print "elastic start rank=R size=S ... pid=P" at each (re)start and, with --checksum,
# "PARAM_CHECKSUM rank=R size=S steps=N <sum>" at the end.

# survive_one_kill STEPS PGREP_PATTERN COMMAND...: runs COMMAND under hvdrun, kills the last worker whose command
# line matches PGREP_PATTERN once all three train and a few commits are in, and asserts the above.
survive_one_kill() {
  local steps=$1 pattern=$2
  shift 2
  "$HVDRUN" -H localhost:3 --min-np 2 "$@" >"$TEST_TMP/out" 2>"$TEST_TMP/err" &
  local job=$!
  wait_lines 3 "elastic start rank=[0-2] size=3" 60
  wait_lines 2 "Train Epoch: " 60  # rank 0's progress at batch 0 and at --log-interval: commits are in
  local victim survivors
  victim=$(pgrep -f "$pattern" | tail -1)
  [ -n "$victim" ] || fail "no worker to kill"
  survivors=$(pgrep -f "$pattern" | grep -vx "$victim" | sort | tr '\n' ' ')
  kill -KILL "$victim"
  wait_exit "$job" 120
  expect_rc 0 "the job that lost a worker"

  [ "$(grep -cE "elastic start rank=[01] size=2" <<<"$OUT")" -eq 2 ] ||
    { echo "$OUT" | tail -20; fail "the survivors did not start again at size 2"; }
  [ "$(grep -c "PARAM_CHECKSUM rank=[01] size=2 steps=$steps" <<<"$OUT")" -eq 2 ] ||
    { echo "$OUT" | tail -20; fail "expected 2 survivors to finish $steps steps"; }
  local sums
  sums=$(sed -n "s/.*PARAM_CHECKSUM rank=[01] size=2 steps=$steps //p" <<<"$OUT" | sort -u)
  [ "$(wc -l <<<"$sums")" -eq 1 ] || fail "the survivors' parameters differ: $(echo $sums)"
  # In process: the size-2 starts come from the same processes as two of the size-3 starts.
  local pid restarted
  restarted=$(sed -n 's/.*elastic start rank=[01] size=2 .* pid=\([0-9]*\)$/\1/p' <<<"$OUT")
  [ "$(wc -w <<<"$restarted")" -eq 2 ] || fail "expected the pids of 2 restarted workers, got '$(echo $restarted)'"
  for pid in $restarted; do
    grep -q "size=3 .* pid=$pid\$" <<<"$OUT" || fail "worker $pid at size 2 was not one of the size-3 workers"
    [[ " $survivors " == *" $pid "* ]] || fail "worker $pid at size 2 is not a survivor ($survivors)"
  done
  pass "one of 3 workers SIGKILLed: 2 survivors reset in process and finished $steps steps with identical parameters ($sums)"
}
