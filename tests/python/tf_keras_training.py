"""hvd.tensorflow.keras in training, for the Keras that tf.keras is (Keras 3, or Keras 2 under TF_USE_LEGACY_KERAS=1):
model.fit with DistributedOptimizer and Horovod's callbacks on data that differs per rank, then their effects:
every rank ends with the same weights (the broadcast at the first batch, then averaged gradients), the epoch's
metrics are the average of the ranks' own (MetricAverageCallback), and the learning rate climbs per batch as the
warm-up's formula says. Then a DistributedGradientTape loop, PartialDistributedGradientTape's local layer, hvd.tensorflow.DistributedOptimizer on a
tf.compat.v1 optimizer in a graph, and SyncBatchNormalization's global moments. One "ok NAME" line per check per rank. Usage: tf_keras_training.py MODULE
(hvd.tensorflow.keras, or horovod.tensorflow.keras under --horovod-compat)."""

import importlib
import sys

import numpy as np
import tensorflow as tf

hvd = importlib.import_module(sys.argv[1])
hvd_tf = importlib.import_module(sys.argv[1].split(".")[0] + ".tensorflow")
hvd.init()
rank, size = hvd.rank(), hvd.size()
keras = tf.keras
STEPS, EPOCHS, WARMUP = 6, 2, 2
LR = 0.01 * size


def ok(name):
    print(f"ok {name}", flush=True)


def same_everywhere(name, arrays):
    gathered = hvd_tf.allgather_object([np.asarray(a) for a in arrays])
    for r, other in enumerate(gathered):
        for mine, theirs in zip(gathered[0], other):
            if not np.array_equal(mine, theirs):
                raise AssertionError(f"{name}: rank {r} differs from rank 0")


class Recorder(keras.callbacks.Callback):
    """Records the logs of each epoch's end and the learning rate at each batch's start."""

    def __init__(self):
        super().__init__()
        self.epoch_logs, self.lrs = [], []

    def on_batch_begin(self, batch, logs=None):
        self.lrs.append(float(np.asarray(self.model.optimizer.learning_rate)))

    def on_epoch_end(self, epoch, logs=None):
        self.epoch_logs.append(dict(logs or {}))


keras.utils.set_random_seed(100 + rank)  # every rank starts from different weights
x = np.random.RandomState(rank).rand(STEPS * 8, 5).astype(np.float32)
y = (x.sum(1, keepdims=True) * (rank + 1)).astype(np.float32)
model = keras.Sequential([keras.Input(shape=(5,)), keras.layers.Dense(4, activation="relu"), keras.layers.Dense(1)])
optimizer = hvd.DistributedOptimizer(keras.optimizers.SGD(learning_rate=LR, momentum=0.9))
model.compile(optimizer=optimizer, loss="mse")
raw, averaged = Recorder(), Recorder()
callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0), raw, hvd.callbacks.MetricAverageCallback(),
             hvd.callbacks.LearningRateWarmupCallback(initial_lr=LR, warmup_epochs=WARMUP, steps_per_epoch=STEPS),
             averaged]
model.fit(x, y, batch_size=8, epochs=EPOCHS, steps_per_epoch=STEPS, callbacks=callbacks, verbose=0, shuffle=False)
same_everywhere("fit weights", model.get_weights())
ok("fit_weights_identical")

for epoch in range(EPOCHS):
    mine = raw.epoch_logs[epoch]["loss"]
    everyone = hvd_tf.allgather_object(mine)
    got = averaged.epoch_logs[epoch]["loss"]
    if not np.isclose(got, np.mean(everyone), rtol=1e-6):
        raise AssertionError(f"epoch {epoch}: averaged loss {got}, ranks' own {everyone}")
ok("metric_average")

# Warm-up: at batch b of epoch e (< WARMUP), lr = LR / size * ((e + (b + 1) / STEPS) * (size - 1) / WARMUP + 1).
for i, lr in enumerate(averaged.lrs[:WARMUP * STEPS]):
    e, b = divmod(i, STEPS)
    want = LR / size * ((e + (b + 1) / STEPS) * (size - 1) / WARMUP + 1)
    if not np.isclose(lr, want, rtol=1e-5):
        raise AssertionError(f"warm-up: batch {i} has lr {lr}, expected {want}")
ok("warmup_lr")

# A custom loop: DistributedGradientTape averages the gradients, so weights stay equal after a broadcast.
model2 = keras.Sequential([keras.Input(shape=(5,)), keras.layers.Dense(3), keras.layers.Dense(1)])
hvd_tf.broadcast_variables(model2.variables, root_rank=0)
opt2 = keras.optimizers.SGD(learning_rate=0.05)
for step in range(3):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((model2(x[step * 8:(step + 1) * 8]) - y[step * 8:(step + 1) * 8]) ** 2)
    tape = hvd_tf.DistributedGradientTape(tape)
    grads = tape.gradient(loss, model2.trainable_variables)
    opt2.apply_gradients(zip(grads, model2.trainable_variables))
same_everywhere("tape weights", model2.get_weights())
ok("gradient_tape")

# PartialDistributedGradientTape: the local layer's gradient is this rank's own divided by the size (Horovod's
# scale_local_gradients), the shared layer's the average over ranks.
model3 = keras.Sequential([keras.Input(shape=(5,)), keras.layers.Dense(2), keras.layers.Dense(1)])
hvd_tf.broadcast_variables(model3.variables, root_rank=0)
with tf.GradientTape(persistent=True) as plain:
    loss = tf.reduce_mean((model3(x[:8]) - y[:8]) ** 2)
raw = [g.numpy() for g in plain.gradient(loss, model3.trainable_variables)]
with tf.GradientTape() as tape:
    loss = tf.reduce_mean((model3(x[:8]) - y[:8]) ** 2)
tape = hvd_tf.PartialDistributedGradientTape(tape, local_layers=[model3.layers[1]])
got = [g.numpy() for g in tape.gradient(loss, model3.trainable_variables)]
everyone = hvd_tf.allgather_object(raw)
for i, g in enumerate(got):
    local = i >= 2  # the second Dense's kernel and bias
    want = raw[i] / size if local else np.mean([r[i] for r in everyone], 0)
    if not np.allclose(g, want, rtol=1e-5, atol=1e-6):
        raise AssertionError(f"PartialDistributedGradientTape: gradient {i} (local={local}) is {g}, want {want}")
ok("partial_tape")

# tf.compat.v1: DistributedOptimizer in a graph, BroadcastGlobalVariablesHook at session start.
with tf.Graph().as_default():
    w = tf.compat.v1.get_variable("w", initializer=tf.constant([float(rank + 1), 2.0]))
    loss = tf.reduce_sum(w * tf.constant([float(rank + 1), 1.0]))
    opt = hvd_tf.DistributedOptimizer(tf.compat.v1.train.GradientDescentOptimizer(0.1))
    train = opt.minimize(loss)
    hooks = [hvd_tf.BroadcastGlobalVariablesHook(0)]
    with tf.compat.v1.train.MonitoredTrainingSession(hooks=hooks) as session:
        for _ in range(2):
            session.run(train)
        final = session.run(w)
mean_grad = np.mean([r + 1 for r in range(size)])
expect = np.array([1.0 - 2 * 0.1 * mean_grad, 2.0 - 2 * 0.1])
if not np.allclose(final, expect):
    raise AssertionError(f"v1 DistributedOptimizer: w = {final}, expected {expect}")
ok("v1_optimizer")

# SyncBatchNormalization: in training, rank r's rows normalized by the moments of every rank's batch.
batches = [np.random.RandomState(10 + r).rand(4, 3).astype(np.float32) * (r + 1) for r in range(size)]
layer = hvd_tf.SyncBatchNormalization(epsilon=1e-3)
got = layer(tf.constant(batches[rank]), training=True).numpy()
everything = np.concatenate(batches)
want = (batches[rank] - everything.mean(0)) / np.sqrt(everything.var(0) + 1e-3)
if not np.allclose(got, want, atol=1e-4):
    raise AssertionError(f"SyncBatchNormalization: got {got.tolist()}, want {want.tolist()}")
ok("sync_batch_norm")
ok("done")
