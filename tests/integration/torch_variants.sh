# Under hvdrun -np 2: --fp16-allreduce, --use-adasum and --gradient-predivide-factor 2 each train to >= 70% test
# accuracy in one epoch, with --momentum 0.9 (the example's default; spelled out because Horovod's 0.5 lands near
# 74%, leaving little margin for compression noise or Adasum's smaller steps). Skips (77) without the example.
source "$(dirname "$0")/lib.bash"
EXAMPLE="$HVD_BIN/train_fashion_mnist"
[ -x "$EXAMPLE" ] || { echo "skip: $EXAMPLE not built (LibTorch missing?)"; exit 77; }

for variant in "--fp16-allreduce" "--use-adasum" "--gradient-predivide-factor 2"; do
  run_hvdrun 300 -np 2 "$EXAMPLE" --epochs 1 --momentum 0.9 --log-interval 100 $variant
  expect_rc 0 "$variant"
  acc="$(sed -n 's/^\[0\]<stdout>:Test set: Average loss: [0-9.]*, Accuracy: \([0-9.]*\)%$/\1/p' <<<"$OUT")"
  [ -n "$acc" ] || { echo "$OUT" | tail -20; fail "$variant: no 'Test set' line"; }
  awk -v a="$acc" 'BEGIN { exit !(a >= 70) }' || fail "$variant: accuracy $acc% < 70% after one epoch"
  pass "$variant: $acc% after one epoch"
done
