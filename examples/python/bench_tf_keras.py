"""One side of scripts/bench-tf.sh: the same Keras training loop (model.fit on synthetic data) under hvd, under
TensorFlow's tf.distribute.MultiWorkerMirroredStrategy (TF_CONFIG, its collective ring), or alone (each process
training by itself, exchanging nothing: the ceiling). Every side uses the same per-worker batch, intra- and
inter-op threads and steps; rank 0 prints one line: `BENCH mode=... model=... samples_per_s=... threads=...`.
Models: mnist (the Fashion-MNIST recipe's convolutional network, 28x28x1), resnet50 (Horovod's synthetic
benchmark's model, at --image-size). --mode latency instead times a blocking 8-byte allreduce from eager
TensorFlow under hvd: `BENCH mode=latency us_per_call=...` (the median of --calls calls).
"""

import argparse
import contextlib
import json
import os
import sys
import time

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--mode", choices=["hvd", "mwms", "alone", "latency"], required=True)
parser.add_argument("--model", choices=["mnist", "resnet50"], default="mnist")
parser.add_argument("--batch-size", type=int, default=64, help="per worker")
parser.add_argument("--image-size", type=int, default=64, help="resnet50's input side")
parser.add_argument("--steps", type=int, default=40, help="timed steps")
parser.add_argument("--warmup", type=int, default=5)
parser.add_argument("--threads", type=int, default=1, help="intra- and inter-op threads per process")
parser.add_argument("--calls", type=int, default=2000)
args = parser.parse_args()

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

tf.config.threading.set_intra_op_parallelism_threads(args.threads)
tf.config.threading.set_inter_op_parallelism_threads(args.threads)


def model_and_data():
    if args.model == "mnist":
        model = tf.keras.Sequential([
            tf.keras.Input(shape=(28, 28, 1)),
            tf.keras.layers.Conv2D(32, [3, 3], activation="relu"),
            tf.keras.layers.Conv2D(64, [3, 3], activation="relu"),
            tf.keras.layers.MaxPooling2D(pool_size=(2, 2)),
            tf.keras.layers.Dropout(0.25),
            tf.keras.layers.Flatten(),
            tf.keras.layers.Dense(128, activation="relu"),
            tf.keras.layers.Dropout(0.5),
            tf.keras.layers.Dense(10, activation="softmax"),
        ])
        shape = (28, 28, 1)
    else:
        model = tf.keras.applications.ResNet50(weights=None, input_shape=(args.image_size, args.image_size, 3),
                                               classes=1000)
        shape = (args.image_size, args.image_size, 3)
    return model, shape, (1000 if args.model == "resnet50" else 10)


class Timer(tf.keras.callbacks.Callback):
    """Wall time of the timed steps: from the end of the warm-up's last batch to the end of the last batch."""

    def on_train_batch_end(self, batch, logs=None):
        if batch == args.warmup - 1:
            self.start = time.perf_counter()
        if batch == args.warmup + args.steps - 1:
            self.seconds = time.perf_counter() - self.start


def dataset(shape, classes, batch):
    x = np.random.RandomState(0).rand(batch, *shape).astype(np.float32)
    y = np.random.RandomState(1).randint(classes, size=(batch,)).astype(np.int64)
    return tf.data.Dataset.from_tensors((x, y)).repeat()


def fit(model, data, workers, rank, optimizer, scope=None):
    # Under a strategy the model is compiled in its scope, as TensorFlow's guide does.
    with scope or contextlib.nullcontext():
        model.compile(optimizer=optimizer, loss=tf.keras.losses.SparseCategoricalCrossentropy())
    timer = Timer()
    model.fit(data, steps_per_epoch=args.warmup + args.steps, epochs=1, callbacks=[timer], verbose=0)
    if rank == 0:
        rate = args.steps * args.batch_size * workers / timer.seconds
        print(f"BENCH mode={args.mode} model={args.model} workers={workers} batch={args.batch_size} "
              f"samples_per_s={rate:.1f} threads={args.threads}", flush=True)


if args.mode == "latency":
    import hvd.tensorflow as hvd
    hvd.init()
    x = tf.constant([1.0, 2.0], dtype=tf.float32)
    for _ in range(100):
        hvd.allreduce(x, op=hvd.Sum)
    times = []
    for _ in range(args.calls):
        t = time.perf_counter()
        hvd.allreduce(x, op=hvd.Sum)
        times.append(time.perf_counter() - t)
    if hvd.rank() == 0:
        print(f"BENCH mode=latency us_per_call={1e6 * float(np.median(times)):.1f}", flush=True)
elif args.mode == "hvd":
    import hvd.tensorflow.keras as hvd
    hvd.init()
    model, shape, classes = model_and_data()
    optimizer = hvd.DistributedOptimizer(tf.keras.optimizers.SGD(0.01))
    fit(model, dataset(shape, classes, args.batch_size), hvd.size(), hvd.rank(), optimizer)
elif args.mode == "mwms":
    config = json.loads(os.environ["TF_CONFIG"])
    workers, rank = len(config["cluster"]["worker"]), config["task"]["index"]
    options = tf.distribute.experimental.CommunicationOptions(
        implementation=tf.distribute.experimental.CommunicationImplementation.RING)
    strategy = tf.distribute.MultiWorkerMirroredStrategy(communication_options=options)
    with strategy.scope():
        model, shape, classes = model_and_data()
        optimizer = tf.keras.optimizers.SGD(0.01)
    # The strategy's global batch is the per-worker batch times the workers: the same work per worker as hvd's.
    data = dataset(shape, classes, args.batch_size * workers)
    options = tf.data.Options()
    options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.OFF
    fit(model, data.with_options(options), workers, rank, optimizer, scope=strategy.scope())
else:
    rank = int(os.environ.get("BENCH_RANK", "0"))
    model, shape, classes = model_and_data()
    fit(model, dataset(shape, classes, args.batch_size), int(os.environ.get("BENCH_WORKERS", "1")), rank,
        tf.keras.optimizers.SGD(0.01))
sys.exit(0)
