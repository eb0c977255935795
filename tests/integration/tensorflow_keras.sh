# hvd.tensorflow.keras in training (tests/python/tf_keras_training.py): model.fit with DistributedOptimizer and the
# callbacks (weights identical on every rank, metrics averaged, the warm-up's rate per batch), a
# DistributedGradientTape loop and a tf.compat.v1 DistributedOptimizer under MonitoredTrainingSession; on Keras 3
# through hvd.tensorflow.keras and on Keras 2 (TF_USE_LEGACY_KERAS=1) through horovod.tensorflow.keras under
# --horovod-compat, at np 2 and 3. Then a TensorFlow exception on rank 1 is hvdrun's root cause.
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/python_lib.bash"
source "$(dirname "$0")/report_lib.bash"
source "$(dirname "$0")/tensorflow_lib.bash"

checks="fit_weights_identical metric_average warmup_lr gradient_tape v1_optimizer done"
run_keras() {  # NP KERAS MODULE [hvdrun flags...]
  local np=$1 keras=$2 module=$3; shift 3
  local legacy=0
  [ "$keras" = 2 ] && legacy=1
  run_hvdrun 300 "$@" -x TF_USE_LEGACY_KERAS=$legacy -np "$np" "$TF_PY" "$TESTS_PY/tf_keras_training.py" "$module"
  expect_rc 0 "Keras $keras through $module at np=$np"
  for check in $checks; do expect_lines "<stdout>:ok $check$" "$np" "Keras $keras np=$np: $check"; done
  pass "Keras $keras through $module at np=$np: fit, callbacks' effects, tape, v1 optimizer"
}
run_keras 2 3 hvd.tensorflow.keras
run_keras 3 2 horovod.tensorflow.keras --horovod-compat
run_keras 3 3 hvd.keras

run_hvdrun 120 -np 3 --kill-grace 2 --report "$REPORT" "$TF_PY" "$TESTS_PY/tf_raise.py" 1
expect_rc 1 "rank 1 raises"
expect_root_cause "  rank 1 on localhost (pid "
expect_reason "InvalidArgumentError"
expect_reason "negative input on rank 1"
expect_json 'j["root_cause"]["source"]' python
pass "a TensorFlow exception on rank 1 is the root cause, with its type and message"
