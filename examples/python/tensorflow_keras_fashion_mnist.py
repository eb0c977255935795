"""Horovod's Keras MNIST recipe (tensorflow2_keras_mnist.py) on Fashion-MNIST, with hvd: the script a Horovod user
already has, with `import hvd.tensorflow.keras as hvd` in place of `import horovod.tensorflow.keras as hvd`.

    hvdrun -np 2 "$(scripts/framework-python.sh tensorflow)" examples/python/tensorflow_keras_fashion_mnist.py

The recipe: each rank trains on its shard; the learning rate is scaled by the number of ranks, warmed up over the
first epochs, and DistributedOptimizer averages the gradients; rank 0 broadcasts the initial weights
(BroadcastGlobalVariablesCallback), metrics are averaged over ranks, and only rank 0 prints and checkpoints. The
global batch is --batch-size (split over the ranks), so runs at different np see the same number of samples per
step. Rank 0 prints the test accuracy at the end: `Test accuracy: 85.12%`. Data: Debian's dataset-fashion-mnist.
"""

import argparse
import gzip
import os
import sys

import numpy as np
import tensorflow as tf

import hvd.tensorflow.keras as hvd

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--epochs", type=int, default=3)
parser.add_argument("--batch-size", type=int, default=128, help="the global batch, split over the ranks")
parser.add_argument("--lr", type=float, default=0.001, help="Adam's rate for one rank (times the number of ranks)")
parser.add_argument("--warmup-epochs", type=int, default=1)
parser.add_argument("--train-samples", type=int, default=60000, help="use the first N training images")
parser.add_argument("--data-dir", default="/usr/share/datasets/fashion-mnist")
parser.add_argument("--checkpoint", default="", help="rank 0 saves the model here after each epoch")
args = parser.parse_args()


def read_idx(path, dims):
    with gzip.open(path, "rb") as f:
        raw = f.read()
    if int.from_bytes(raw[0:4], "big") != 0x800 + dims:
        sys.exit(f"fashion-mnist: {path} is not an IDX file of {dims} dimensions")
    shape = [int.from_bytes(raw[4 + 4 * i:8 + 4 * i], "big") for i in range(dims)]
    return np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * dims).reshape(shape)


def load(prefix):
    images = read_idx(os.path.join(args.data_dir, f"{prefix}-images-idx3-ubyte.gz"), 3)
    labels = read_idx(os.path.join(args.data_dir, f"{prefix}-labels-idx1-ubyte.gz"), 1)
    return (images[..., None] / 255.0).astype(np.float32), labels.astype(np.int64)


hvd.init()
tf.keras.utils.set_random_seed(42 + hvd.rank())
x_train, y_train = load("train")
x_train, y_train = x_train[:args.train_samples], y_train[:args.train_samples]
x_test, y_test = load("t10k")
# This rank's shard, and its share of the global batch.
x_train, y_train = x_train[hvd.rank()::hvd.size()], y_train[hvd.rank()::hvd.size()]
batch = args.batch_size // hvd.size()
steps_per_epoch = len(x_train) // batch

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
scaled_lr = args.lr * hvd.size()
optimizer = hvd.DistributedOptimizer(tf.keras.optimizers.Adam(scaled_lr))
model.compile(loss=tf.keras.losses.SparseCategoricalCrossentropy(), optimizer=optimizer, metrics=["accuracy"])
callbacks = [
    hvd.callbacks.BroadcastGlobalVariablesCallback(0),
    hvd.callbacks.MetricAverageCallback(),
    hvd.callbacks.LearningRateWarmupCallback(initial_lr=scaled_lr, warmup_epochs=args.warmup_epochs,
                                             steps_per_epoch=steps_per_epoch, verbose=1 if hvd.rank() == 0 else 0),
]
if hvd.rank() == 0 and args.checkpoint:
    callbacks.append(tf.keras.callbacks.ModelCheckpoint(args.checkpoint))
dataset = tf.data.Dataset.from_tensor_slices((x_train, y_train)).repeat().shuffle(10000, seed=hvd.rank()).batch(batch)
model.fit(dataset, steps_per_epoch=steps_per_epoch, epochs=args.epochs, callbacks=callbacks,
          verbose=2 if hvd.rank() == 0 else 0)
# Every rank evaluates its half of the test set; the accuracy is averaged over ranks.
_, accuracy = model.evaluate(x_test[hvd.rank()::hvd.size()], y_test[hvd.rank()::hvd.size()], verbose=0)
accuracy = float(hvd.allreduce(accuracy, name="test_accuracy"))
if hvd.rank() == 0:
    print(f"Test accuracy: {100 * accuracy:.2f}%", flush=True)
