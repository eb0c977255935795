"""Gradient compression's framework-free part, as horovod.common's: the Compressor interface and the compressor
that sends tensors as they are. Each framework module adds its FP16Compressor (a cast in its own tensors) and its
Compression table (none, fp16)."""


class Compressor:
    """Interface: a compressor turns a tensor into what goes over the wire, and back: compress(tensor) returns
    (tensor to send, context); decompress(tensor, context) undoes it."""

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
