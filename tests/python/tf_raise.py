"""Rank R of a TensorFlow job raises inside a tf.function while the others wait in an allreduce: the shared error
record names it as hvdrun's root cause. Usage: tf_raise.py R"""

import sys

import tensorflow as tf

import hvd.tensorflow as hvd

hvd.init()
bad = int(sys.argv[1])


@tf.function
def step(x):
    tf.debugging.assert_non_negative(x, message=f"negative input on rank {hvd.rank()}")
    return hvd.allreduce(x)


step(tf.constant([1.0, -1.0] if hvd.rank() == bad else [1.0, 1.0]))
