# An elastic PyTorch job (examples/python/pytorch_fashion_mnist_elastic.py, -H localhost:3 --min-np 2) loses one
# worker to SIGKILL mid-training: the two survivors are reset in process (not restarted), restore the last commit,
# go on at size 2 and finish every step with bitwise identical parameters. Skips (77) while hvdrun has no elastic
# mode.
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/elastic_example_lib.bash"
source "$(dirname "$0")/python_lib.bash"
EXAMPLE="$EXAMPLES_PY/pytorch_fashion_mnist_elastic.py"
[ -d /usr/share/datasets/fashion-mnist ] || { echo "skip: dataset-fashion-mnist not installed"; exit 77; }
"$HVDRUN" --help 2>&1 | grep -q -- "--min-np" || { echo "skip: this hvdrun has no elastic mode (--min-np)"; exit 77; }
cd "$TEST_TMP"

STEPS=80
survive_one_kill $STEPS "^$PY .*pytorch_fashion_mnist_elastic.py --max-steps $STEPS " \
  "$PY" "$EXAMPLE" --max-steps $STEPS --batches-per-commit 5 --step-sleep 0.1 --log-interval 10 --checksum
