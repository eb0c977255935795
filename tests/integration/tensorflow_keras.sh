# hvd.tensorflow.keras in training (tests/python/tf_keras_training.py): model.fit with DistributedOptimizer and the
# callbacks (weights identical on every rank, metrics averaged, the warm-up's rate per batch), a
# DistributedGradientTape loop, PartialDistributedGradientTape's local layer, a tf.compat.v1 DistributedOptimizer
# under MonitoredTrainingSession and SyncBatchNormalization's global moments; on Keras 3 through
# hvd.tensorflow.keras and on Keras 2 (TF_USE_LEGACY_KERAS=1) through horovod.tensorflow.keras under
# --horovod-compat, at np 2 and 3. Then a TensorFlow exception on rank 1 is hvdrun's root cause.
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/python_lib.bash"
source "$(dirname "$0")/report_lib.bash"
source "$(dirname "$0")/tensorflow_lib.bash"

checks="fit_weights_identical metric_average warmup_lr gradient_tape partial_tape v1_optimizer sync_batch_norm done"
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

# Under --horovod-compat, `import keras` is the Keras that tf.keras is: tf_keras under TF_USE_LEGACY_KERAS=1 (the
# same classes as tf.keras), else Keras 3.
script='import keras, tensorflow as tf
import keras.optimizers.legacy as legacy
print("keras", keras.__name__, keras.__version__.split(".")[0], keras.optimizers.SGD is tf.keras.optimizers.SGD,
      legacy.Adam is tf.keras.optimizers.legacy.Adam)'
run_hvdrun 120 --horovod-compat -x TF_USE_LEGACY_KERAS=1 -np 1 "$TF_PY" -c "$script"
expect_rc 0 "import keras under --horovod-compat, Keras 2"
expect_lines "<stdout>:keras tf_keras 2 True True$" 1 "keras is tf_keras under TF_USE_LEGACY_KERAS=1"
run_hvdrun 120 --horovod-compat -np 1 "$TF_PY" -c "import keras, tensorflow as tf; print('keras', keras.__name__,
keras.__version__.split('.')[0], keras.optimizers.SGD is tf.keras.optimizers.SGD)"
expect_rc 0 "import keras under --horovod-compat, Keras 3"
expect_lines "<stdout>:keras keras 3 True$" 1 "keras is Keras 3 by default"
pass "import keras under --horovod-compat: tf_keras (the same classes) under TF_USE_LEGACY_KERAS=1, else Keras 3"
