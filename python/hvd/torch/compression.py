"""Gradient compression for allreduce, as horovod.torch.compression: Compression.none and Compression.fp16.

compress(tensor) returns (tensor to send, context); decompress(tensor, context) undoes it. fp16 is hvd_torch's own
(floating-point tensors wider than 16 bits travel as float16 and come back in their dtype).
"""

from hvd.torch import _C


class Compressor:
    """Interface: a compressor turns a tensor into what goes over the wire, and back."""

    @staticmethod
    def compress(tensor):
        raise NotImplementedError

    @staticmethod
    def decompress(tensor, ctx):
        raise NotImplementedError


class NoneCompressor(Compressor):
    """Sends tensors as they are."""

    @staticmethod
    def compress(tensor):
        return tensor, None

    @staticmethod
    def decompress(tensor, ctx):
        return tensor


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
