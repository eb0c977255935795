# Under hvdrun -np 2: Fashion-MNIST test accuracy (averaged over ranks) >= 75% after one epoch and >= 80% after
# three, in one three-epoch run, with the example's defaults (momentum 0.9: Horovod's MNIST value 0.5 reaches only
# ~74% / ~78% on the harder Fashion-MNIST after 1 / 3 epochs at np=2; 0.9 measured 80.3% / 82.0% / 83.9%).
# Skips (77) without the example.
source "$(dirname "$0")/lib.bash"
EXAMPLE="$HVD_BIN/train_fashion_mnist"
[ -x "$EXAMPLE" ] || { echo "skip: $EXAMPLE not built (LibTorch missing?)"; exit 77; }

start=$SECONDS
run_hvdrun 540 -np 2 "$EXAMPLE" --epochs 3 --log-interval 100
expect_rc 0 "3 epochs"
acc=($(sed -n 's/^\[0\]<stdout>:Test set: Average loss: [0-9.]*, Accuracy: \([0-9.]*\)%$/\1/p' <<<"$OUT"))
[ "${#acc[@]}" -eq 3 ] || { echo "$OUT" | tail -20; fail "expected 3 'Test set' lines from rank 0, got ${#acc[@]}"; }
awk -v a="${acc[0]}" 'BEGIN { exit !(a >= 75) }' || fail "epoch 1 accuracy ${acc[0]}% < 75%"
awk -v a="${acc[2]}" 'BEGIN { exit !(a >= 80) }' || fail "epoch 3 accuracy ${acc[2]}% < 80%"
pass "accuracy per epoch: ${acc[*]} (%), $((SECONDS - start)) s for 3 epochs at np=2"
