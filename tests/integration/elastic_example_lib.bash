# The end-to-end check both elastic Fashion-MNIST examples share (sourced after lib.bash; not a test itself):
# an elastic job on -H localhost:3 --min-np 2 loses rank 2 to SIGKILL between two commits, and the two survivors
# are reset in process (not restarted), go back to the last commit (they resume at its step with its parameters,
# not where rank 0 had trained to), go on at size 2 and finish every step with bitwise identical parameters.
# The examples print "elastic start rank=R size=S ... steps=N pid=P" at each (re)start, rank 0 prints
# "Train Epoch: E batch B ..." after each batch with --log-interval 1, and with --checksum every rank prints
# "elastic synced rank=R size=S steps=N checksum=C" after each start's sync, rank 0 "elastic commit steps=N
# checksum=C" at each commit, and each rank "PARAM_CHECKSUM rank=R size=S steps=N <sum>" at the end.

# survive_one_kill STEPS COMMIT_EVERY COMMAND...: runs COMMAND (which must train STEPS steps with
# --batches-per-commit COMMIT_EVERY --log-interval 1 --checksum) under hvdrun, SIGKILLs rank 2 once rank 0 has
# logged batch COMMIT_EVERY + 2 of epoch 1, and asserts the above.
survive_one_kill() {
  local steps=$1 every=$2
  shift 2
  : >"$TEST_TMP/out"
  "$HVDRUN" -H localhost:3 --min-np 2 "$@" >"$TEST_TMP/out" 2>"$TEST_TMP/err" &
  local job=$!
  wait_lines 3 "elastic start rank=[0-2] size=3" 60
  local start3 id0 victim survivors
  start3=$(grep -E "^\[[0-9]+\]<stdout>:elastic start rank=[0-2] size=3 " "$TEST_TMP/out")
  id0=$(sed -n 's/^\[\([0-9]*\)\]<stdout>:elastic start rank=0 size=3 .*/\1/p' <<<"$start3")
  victim=$(sed -n 's/.*elastic start rank=2 size=3 .* pid=\([0-9]*\)$/\1/p' <<<"$start3")
  survivors=$(sed -n 's/.*elastic start rank=[01] size=3 .* pid=\([0-9]*\)$/\1/p' <<<"$start3" | sort | xargs)
  [ -n "$id0" ] && [ -n "$victim" ] && [ "$(wc -w <<<"$survivors")" -eq 2 ] ||
    { echo "$start3"; fail "no start lines of ranks 0, 1 and 2 at size 3"; }
  # Two steps past the commit of step COMMIT_EVERY: rank 0 is cut short before the next commit.
  wait_lines 1 "^\[$id0\]<stdout>:Train Epoch: 1 batch $((every + 2)) " 120
  kill -KILL "$victim"
  wait_exit "$job" 120
  expect_rc 0 "the job that lost a worker"

  [ "$(grep -cE "elastic start rank=[01] size=2" <<<"$OUT")" -eq 2 ] ||
    { echo "$OUT" | tail -20; fail "the survivors did not start again at size 2"; }
  [ "$(grep -c "PARAM_CHECKSUM rank=[01] size=2 steps=$steps" <<<"$OUT")" -eq 2 ] ||
    { echo "$OUT" | tail -20; fail "expected 2 survivors to finish $steps steps"; }
  local sums
  sums=$(sed -n "s/.*PARAM_CHECKSUM rank=[01] size=2 steps=$steps //p" <<<"$OUT" | sort -u)
  [ "$(grep -c . <<<"$sums")" -eq 1 ] || fail "the survivors' parameters differ: $(echo $sums)"
  # In process: the size-2 starts come from the same processes as two of the size-3 starts.
  local pid restarted
  restarted=$(sed -n 's/.*elastic start rank=[01] size=2 .* pid=\([0-9]*\)$/\1/p' <<<"$OUT" | sort | xargs)
  [ "$restarted" = "$survivors" ] || fail "the workers at size 2 ($restarted) are not the survivors ($survivors)"
  pass "rank 2 SIGKILLed: 2 survivors reset in process and finished $steps steps with identical parameters ($sums)"

  # The rollback: rank 0's last commit and last finished step before its restart; the survivors' synced state.
  local rank0 reached commit commit_sum synced
  rank0=$(sed -n "/^\[$id0\]<stdout>:elastic start rank=0 size=2 /q; s/^\[$id0\]<stdout>://p" <<<"$OUT")
  reached=$(sed -n 's/^Train Epoch: 1 batch \([0-9]*\) .*/\1/p' <<<"$rank0" | tail -n 1)
  read -r commit commit_sum < <(sed -n 's/^elastic commit steps=\([0-9]*\) checksum=\([0-9a-f]*\)$/\1 \2/p' <<<"$rank0" | tail -n 1) || true
  [ -n "$reached" ] && [ -n "$commit" ] && [ -n "$commit_sum" ] ||
    { echo "$rank0" | tail; fail "rank 0 logged no batch or no commit before its restart"; }
  [ "$reached" -gt "$commit" ] ||
    fail "rank 0 had just committed step $reached when the kill hit, so the rollback went unchecked (kill earlier)"
  synced=$(sed -n 's/.*elastic synced rank=[01] size=2 steps=\([0-9]*\) checksum=\([0-9a-f]*\)$/\1 \2/p' <<<"$OUT")
  [ "$(grep -c . <<<"$synced")" -eq 2 ] && [ "$(sort -u <<<"$synced")" = "$commit $commit_sum" ] ||
    fail "rank 0 had trained to step $reached past the commit of step $commit (parameters $commit_sum); the survivors resumed at: $(echo $synced)"
  pass "rank 0 had reached step $reached; both survivors resumed at the commit of step $commit with its parameters $commit_sum"
}
