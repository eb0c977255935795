# examples/python/pytorch_fashion_mnist.py at np=2 with its own defaults: >= 75% test accuracy after one epoch and
# >= 80% after three, in one run.
# Then 100 steps each of default, --fp16-allreduce and --use-adasum: parameters bitwise identical on both ranks
# (hashes of all parameter bytes), and the checkpoint written by rank 0.
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/python_lib.bash"
EXAMPLE="$EXAMPLES_PY/pytorch_fashion_mnist.py"
[ -d /usr/share/datasets/fashion-mnist ] || { echo "skip: dataset-fashion-mnist not installed"; exit 77; }

start=$SECONDS
run_hvdrun 240 -np 2 "$PY" "$EXAMPLE" --epochs 3 --log-interval 200
expect_rc 0 "three epochs"
acc=($(sed -n 's/^\[0\]<stdout>:Test set: Average loss: [0-9.]*, Accuracy: \([0-9.]*\)%$/\1/p' <<<"$OUT"))
[ "${#acc[@]}" -eq 3 ] || { echo "$OUT" | tail -20; fail "expected 3 'Test set' lines from rank 0, got ${#acc[@]}"; }
expect_lines "^\[1\]<stdout>:Test set" 0 "only rank 0 prints the test line"
awk -v a="${acc[0]}" 'BEGIN { exit !(a >= 75) }' || fail "epoch 1 accuracy ${acc[0]}% < 75%"
awk -v a="${acc[2]}" 'BEGIN { exit !(a >= 80) }' || fail "epoch 3 accuracy ${acc[2]}% < 80%"
pass "accuracy per epoch at np=2: ${acc[*]} (%), $((SECONDS - start)) s for 3 epochs"

for variant in "" "--fp16-allreduce" "--use-adasum"; do
  rm -f "$TEST_TMP/model.pt"
  run_hvdrun 120 -np 2 "$PY" "$EXAMPLE" --max-steps 100 --checksum --benchmark --log-interval 1000 \
    --checkpoint "$TEST_TMP/model.pt" $variant
  expect_rc 0 "100 steps ${variant:-(default)}"
  expect_params_identical 100 "${variant:-default}"
  [ -s "$TEST_TMP/model.pt" ] || fail "${variant:-default}: no checkpoint at $TEST_TMP/model.pt"
  pass "100 steps ${variant:-(default)}: parameters bitwise identical on both ranks ($CHECKSUM)"
done
