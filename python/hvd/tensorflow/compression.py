"""Gradient compression for hvd.tensorflow, as horovod.tensorflow.compression: none, and fp16 (floating tensors sent
as float16 and cast back after the reduction)."""

import tensorflow as tf

from hvd.common.compression import Compressor, NoneCompressor  # noqa: F401  (this module's names, as Horovod's)


class FP16Compressor(Compressor):
    @staticmethod
    def compress(tensor):
        if tensor.dtype.is_floating and tensor.dtype != tf.float16:
            return tf.cast(tensor, tf.float16), tensor.dtype
        return tensor, None

    @staticmethod
    def decompress(tensor, ctx):
        return tf.cast(tensor, ctx) if ctx is not None else tensor


class Compression:
    """The compressors, by Horovod's names."""
    none = NoneCompressor
    fp16 = FP16Compressor
