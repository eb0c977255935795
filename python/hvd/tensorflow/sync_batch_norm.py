"""SyncBatchNormalization, as horovod.tensorflow's: a Keras BatchNormalization whose training-time moments are the
whole global batch's, every rank's local sums allreduced (Sum, one grouped op) before the mean and variance. The
allreduce has its gradient, so backprop sees the global moments too. Works on the Keras tf.keras is: Keras 2
(tf_keras, _calculate_mean_and_var) and Keras 3 (_moments)."""

import tensorflow as tf

from hvd.common.basics import Sum
from hvd.tensorflow.mpi_ops import _grouped_allreduce


def _global_moments(x, axes, keep_dims):
    """The mean and variance of x over `axes` and over every rank's x."""
    x = tf.convert_to_tensor(x)
    compute = tf.float32 if x.dtype in (tf.float16, tf.bfloat16) else x.dtype
    x = tf.cast(x, compute)
    count = tf.cast(tf.reduce_prod(tf.gather(tf.shape(x), axes)), compute)
    total, squares, counts = _grouped_allreduce(
        [tf.reduce_sum(x, axis=axes, keepdims=True), tf.reduce_sum(tf.square(x), axis=axes, keepdims=True),
         tf.reshape(count, [1] * len(x.shape))], op=Sum)
    mean = total / counts
    variance = tf.maximum(squares / counts - tf.square(mean), 0.0)
    if not keep_dims:
        mean, variance = tf.squeeze(mean, axes), tf.squeeze(variance, axes)
    return mean, variance


_BatchNormalization = tf.keras.layers.BatchNormalization
_KERAS2 = hasattr(_BatchNormalization, "_calculate_mean_and_var")  # tf_keras; Keras 3 has _moments(inputs, mask)


class SyncBatchNormalization(_BatchNormalization):
    """BatchNormalization over the global batch (see the module); arguments are BatchNormalization's."""

    def __init__(self, fused=False, **kwargs):
        if fused:
            raise ValueError("SyncBatchNormalization does not support fused=True.")
        if _KERAS2:
            kwargs["fused"] = False
        super().__init__(**kwargs)

    if _KERAS2:
        def _calculate_mean_and_var(self, inputs, reduction_axes, keep_dims, mask=None):
            if mask is not None:
                raise NotImplementedError("SyncBatchNormalization does not support masks")
            return _global_moments(inputs, reduction_axes, keep_dims)
    else:
        def _moments(self, inputs, mask):
            if mask is not None:
                raise NotImplementedError("SyncBatchNormalization does not support masks")
            mean, variance = _global_moments(inputs, self._reduction_axes, keep_dims=False)
            return tf.cast(mean, inputs.dtype), tf.cast(variance, inputs.dtype)
