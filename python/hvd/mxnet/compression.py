"""Gradient compression for DistributedTrainer, as horovod.mxnet.compression: Compression.none and
Compression.fp16. compress(tensor) returns (what goes over the wire, context); decompress(tensor, context) undoes
it. Both are MXNet engine ops, so they queue behind the gradient and before the allreduce like any other op."""

import numpy as np

from hvd.common.compression import Compressor, NoneCompressor  # noqa: F401  (this module's names, as Horovod's)


class FP16Compressor(Compressor):
    """Sends float32/float64 tensors as float16; other dtypes pass through."""

    @staticmethod
    def compress(tensor):
        if tensor.dtype in (np.float32, np.float64):
            return tensor.astype(np.float16), tensor.dtype
        return tensor, None

    @staticmethod
    def decompress(tensor, ctx):
        return tensor.astype(ctx) if ctx is not None else tensor


class Compression:
    """The compressors by name: Compression.none, Compression.fp16."""

    none = NoneCompressor
    fp16 = FP16Compressor
