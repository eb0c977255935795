# Under hvdrun -np 2: after 200 steps of train_fashion_mnist every rank's parameters are bitwise identical
# (FNV-1a checksums of all parameter bytes), and the training loss falls; --checkpoint is written (by rank 0).
# Skips (77) without the example.
source "$(dirname "$0")/lib.bash"
EXAMPLE="$HVD_BIN/train_fashion_mnist"
[ -x "$EXAMPLE" ] || { echo "skip: $EXAMPLE not built (LibTorch missing?)"; exit 77; }

for variant in "" "--fp16-allreduce" "--use-adasum"; do
  rm -f "$TEST_TMP/model.pt"
  run_hvdrun 300 -np 2 "$EXAMPLE" --max-steps 200 --checksum --log-interval 20 --epochs 1 \
    --checkpoint "$TEST_TMP/model.pt" $variant
  expect_rc 0 "200 steps ${variant:-(default)}"
  expect_params_identical 200 "${variant:-default}"
  pass "200 steps ${variant:-(default)}: parameters bitwise identical on both ranks ($CHECKSUM)"
  [ -s "$TEST_TMP/model.pt" ] || fail "${variant:-default}: no checkpoint at $TEST_TMP/model.pt"

  losses="$(sed -n 's/^\[0\]<stdout>:Train Epoch: .*Loss: \([0-9.]*\)$/\1/p' <<<"$OUT")"
  first="$(head -1 <<<"$losses")"
  last3="$(tail -3 <<<"$losses" | awk '{ s += $1 } END { printf "%.6f", s / NR }')"
  awk -v f="$first" -v l="$last3" 'BEGIN { exit !(l < 0.6 * f) }' ||
    fail "${variant:-default}: loss did not fall: first $first, mean of the last three logged $last3"
  pass "loss falls ${variant:-(default)}: $first -> $last3"
done
