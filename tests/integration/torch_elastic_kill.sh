# An elastic LibTorch job (train_fashion_mnist_elastic, -H localhost:3 --min-np 2, commits every 10 steps) loses
# rank 2 to SIGKILL two steps past a commit: the two survivors are reset in process (not restarted), restore the
# last commit through TorchState (they resume at its step, not where rank 0 was), go on at size 2 with the same
# DistributedOptimizer and finish every step with bitwise identical parameters.
# Skips (77) without the example or the data set.
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/elastic_example_lib.bash"
EXAMPLE="$HVD_BIN/train_fashion_mnist_elastic"
[ -x "$EXAMPLE" ] || { echo "skip: $EXAMPLE not built (LibTorch missing?)"; exit 77; }
[ -d /usr/share/datasets/fashion-mnist ] || { echo "skip: dataset-fashion-mnist not installed"; exit 77; }
export OMP_NUM_THREADS=1
cd "$TEST_TMP"

STEPS=80
survive_one_kill $STEPS 10 \
  "$EXAMPLE" --max-steps $STEPS --batches-per-commit 10 --step-ms 100 --log-interval 1 --checksum
