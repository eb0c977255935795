# An elastic LibTorch job (train_fashion_mnist_elastic, -H localhost:3 --min-np 2) loses one worker to SIGKILL
# mid-training: the two survivors are reset in process (not restarted), restore the last commit through TorchState,
# go on at size 2 with the same DistributedOptimizer and finish every step with bitwise identical parameters.
# Skips (77) without the example or while hvdrun has no elastic mode.
source "$(dirname "$0")/lib.bash"
EXAMPLE="$HVD_BIN/train_fashion_mnist_elastic"
[ -x "$EXAMPLE" ] || { echo "skip: $EXAMPLE not built (LibTorch missing?)"; exit 77; }
[ -d /usr/share/datasets/fashion-mnist ] || { echo "skip: dataset-fashion-mnist not installed"; exit 77; }
"$HVDRUN" --help 2>&1 | grep -q -- "--min-np" || { echo "skip: this hvdrun has no elastic mode (--min-np)"; exit 77; }
export OMP_NUM_THREADS=1
cd "$TEST_TMP"

STEPS=80
"$HVDRUN" -H localhost:3 --min-np 2 "$EXAMPLE" --max-steps $STEPS --batches-per-commit 5 --step-ms 100 \
  --log-interval 1000 --checksum >"$TEST_TMP/out" 2>"$TEST_TMP/err" &
JOB=$!
wait_lines 3 "elastic start rank=[0-2] size=3" 60
sleep 2  # a few commits in
victim=$(pgrep -f "^$EXAMPLE --max-steps $STEPS " | tail -1)
[ -n "$victim" ] || fail "no worker to kill"
survivors=$(pgrep -f "^$EXAMPLE --max-steps $STEPS " | grep -vx "$victim" | sort | tr '\n' ' ')
kill -KILL "$victim"
wait_exit "$JOB" 120
expect_rc 0 "the job that lost a worker"

[ "$(grep -cE "elastic start rank=[01] size=2" <<<"$OUT")" -eq 2 ] ||
  { echo "$OUT" | tail -20; fail "the survivors did not start again at size 2"; }
[ "$(grep -c "PARAM_CHECKSUM rank=[01] size=2 steps=$STEPS" <<<"$OUT")" -eq 2 ] ||
  { echo "$OUT" | tail -20; fail "expected 2 survivors to finish $STEPS steps"; }
sums=$(sed -n "s/.*PARAM_CHECKSUM rank=[01] size=2 steps=$STEPS //p" <<<"$OUT" | sort -u)
[ "$(wc -l <<<"$sums")" -eq 1 ] || fail "the survivors' parameters differ: $(echo $sums)"
# In process: the size-2 starts come from the same processes as two of the size-3 starts.
for pid in $(sed -n 's/.*elastic start rank=[01] size=2 .* pid=\([0-9]*\)$/\1/p' <<<"$OUT"); do
  grep -q "size=3 .* pid=$pid\$" <<<"$OUT" || fail "worker $pid at size 2 was not one of the size-3 workers"
  [[ " $survivors " == *" $pid "* ]] || fail "worker $pid at size 2 is not a survivor ($survivors)"
done
pass "one of 3 workers SIGKILLed: 2 survivors reset in process and finished $STEPS steps with identical parameters ($sums)"
