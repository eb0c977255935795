# An elastic PyTorch job (examples/python/pytorch_fashion_mnist_elastic.py, -H localhost:3 --min-np 2, commits
# every 10 steps) loses rank 2 to SIGKILL two steps past a commit: the two survivors are reset in process (not
# restarted), hvd.elastic.run restores the last commit (they resume at its step, not where rank 0 was), go on at
# size 2 and finish every step with bitwise identical parameters. Skips (77) without the data set.
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/elastic_example_lib.bash"
source "$(dirname "$0")/python_lib.bash"
EXAMPLE="$EXAMPLES_PY/pytorch_fashion_mnist_elastic.py"
[ -d /usr/share/datasets/fashion-mnist ] || { echo "skip: dataset-fashion-mnist not installed"; exit 77; }
cd "$TEST_TMP"

STEPS=80
survive_one_kill $STEPS 10 \
  "$PY" "$EXAMPLE" --max-steps $STEPS --batches-per-commit 10 --step-sleep 0.1 --log-interval 1 --checksum
