# An elastic PyTorch job (examples/python/pytorch_fashion_mnist_elastic.py, -H localhost:3 --min-np 2) loses one
# worker to SIGKILL mid-training: the two survivors are reset in process (not restarted), restore the last commit,
# go on at size 2 and finish every step with bitwise identical parameters. Skips (77) while hvdrun has no elastic
# mode.
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/python_lib.bash"
EXAMPLE="$EXAMPLES_PY/pytorch_fashion_mnist_elastic.py"
[ -d /usr/share/datasets/fashion-mnist ] || { echo "skip: dataset-fashion-mnist not installed"; exit 77; }
"$HVDRUN" --help 2>&1 | grep -q -- "--min-np" || { echo "skip: this hvdrun has no elastic mode (--min-np)"; exit 77; }
cd "$TEST_TMP"

STEPS=80
"$HVDRUN" -H localhost:3 --min-np 2 "$PY" "$EXAMPLE" --max-steps $STEPS --batches-per-commit 5 --step-sleep 0.1 \
  --log-interval 1000 --checksum >"$TEST_TMP/out" 2>"$TEST_TMP/err" &
JOB=$!
wait_lines 3 "elastic start rank=[0-2] size=3" 60
sleep 2  # a few commits in
victim=$(pgrep -f "^$PY .*pytorch_fashion_mnist_elastic.py --max-steps $STEPS " | tail -1)
[ -n "$victim" ] || fail "no worker to kill"
survivors=$(pgrep -f "^$PY .*pytorch_fashion_mnist_elastic.py --max-steps $STEPS " | grep -vx "$victim" | sort | tr '\n' ' ')
kill -KILL "$victim"
wait_exit "$JOB" 120
expect_rc 0 "the job that lost a worker"

[ "$(grep -cE "elastic start rank=[01] size=2" <<<"$OUT")" -eq 2 ] ||
  { echo "$OUT" | tail -20; fail "the survivors did not start again at size 2"; }
sums=$(sed -n "s/.*PARAM_CHECKSUM rank=[01] size=2 steps=$STEPS //p" <<<"$OUT" | sort -u)
[ "$(grep -c "PARAM_CHECKSUM rank=[01] size=2 steps=$STEPS" <<<"$OUT")" -eq 2 ] ||
  { echo "$OUT" | tail -20; fail "expected 2 survivors to finish $STEPS steps"; }
[ "$(wc -l <<<"$sums")" -eq 1 ] || fail "the survivors' parameters differ: $(echo $sums)"
# In process: the size-2 starts come from the same processes as two of the size-3 starts.
for pid in $(sed -n 's/.*elastic start rank=[01] size=2 .* pid=\([0-9]*\)$/\1/p' <<<"$OUT"); do
  grep -q "size=3 .* pid=$pid\$" <<<"$OUT" || fail "worker $pid at size 2 was not one of the size-3 workers"
  [[ " $survivors " == *" $pid "* ]] || fail "worker $pid at size 2 is not a survivor ($survivors)"
done
pass "one of 3 workers SIGKILLed: 2 survivors reset in process and finished $STEPS steps with identical parameters ($sums)"
