"""Gradient compression for allreduce, as horovod.torch.compression: Compression.none and Compression.fp16.

compress(tensor) returns (tensor to send, context); decompress(tensor, context) undoes it. fp16 is hvd_torch's own
(floating-point tensors wider than 16 bits travel as float16 and come back in their dtype).
"""

from hvd.torch import _C

from hvd.common.compression import Compressor, NoneCompressor  # noqa: F401  (this module's names, as Horovod's)


class FP16Compressor(Compressor):
    """Sends float32/float64 tensors as float16; other dtypes pass through."""

    @staticmethod
    def compress(tensor):
        return _C.compress_fp16(tensor), tensor.dtype

    @staticmethod
    def decompress(tensor, ctx):
        return _C.decompress_fp16(tensor, ctx)


class Compression:
    """The compressors by name: Compression.none, Compression.fp16."""

    none = NoneCompressor
    fp16 = FP16Compressor
