# examples/python/tensorflow_keras_fashion_mnist.py, Horovod's Keras MNIST recipe on Debian's Fashion-MNIST, at
# np=2 on a tenth of the training set for one epoch: it trains past 70% test accuracy, only rank 0 prints the test
# line and writes the checkpoint.
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/python_lib.bash"
source "$(dirname "$0")/tensorflow_lib.bash"
[ -d /usr/share/datasets/fashion-mnist ] || fail "dataset-fashion-mnist not installed (scripts/install-deps.sh)"

run_hvdrun 400 -np 2 "$TF_PY" "$EXAMPLES_PY/tensorflow_keras_fashion_mnist.py" --epochs 1 --train-samples 6000 \
  --checkpoint "$TEST_TMP/model.keras"
expect_rc 0 "the Keras example at np=2"
expect_lines "^\[0\]<stdout>:Test accuracy: " 1 "rank 0's test line"
expect_lines "^\[1\]<stdout>:Test accuracy" 0 "rank 1 prints no test line"
accuracy=$(grep -oE "Test accuracy: [0-9.]+" <<<"$OUT" | grep -oE "[0-9.]+$")
awk -v a="$accuracy" 'BEGIN { exit !(a >= 70) }' || fail "test accuracy $accuracy%, expected at least 70%"
[ -s "$TEST_TMP/model.keras" ] || fail "rank 0 wrote no checkpoint"
pass "the Keras recipe trained at np=2 to $accuracy% test accuracy; rank 0 alone reported and checkpointed"
