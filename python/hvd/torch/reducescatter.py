"""reducescatter and its async form, as horovod.torch's: every rank's tensor reduced (Sum or Average), each rank
keeping its share of dimension 0 (the first ranks get one row more when it does not divide).

Scale factors are applied here, around libhvd's reducescatter (which has none), by Horovod's rules: integer tensors
scaled in float64 and cast back, float16/bfloat16 in float32 (before the sum; the result the same way). The
gradient is Horovod's: the upstream gradients allgathered, times the number of ranks for Sum.
"""

import torch

from hvd.common import _core
from hvd.torch import _C
from hvd.torch.basics import Adasum, Average, Sum, check_process_set, global_process_set, started
from hvd.torch.compression import Compression
from hvd.torch.mpi_ops import PostprocessedHandle, _differentiable, _int_scaled, _is_integer


def _reducescatter_op(op, what):
    op = Average if op is None else op
    if op == Adasum:
        # NotImplementedError is a RuntimeError, which is what Horovod's reducescatter raises for Adasum.
        raise NotImplementedError(f"hvd.torch.{what}: op=Adasum is not supported by reducescatter (as in Horovod); "
                                  "use hvd.Average or hvd.Sum")
    if op not in (Average, Sum):
        raise ValueError(f"hvd.torch.{what}: op={op!r} is not supported; use hvd.Average or hvd.Sum")
    return op


def _scaled(tensor, factor):
    """`tensor` times `factor` as Horovod scales: integers in float64 (_int_scaled); float16/bfloat16 in float32,
    rounded once (torch's `half * float` rounds the factor to half first, an ulp off); others in their own type."""
    if factor == 1.0:
        return tensor
    if _is_integer(tensor):
        return _int_scaled(tensor, factor)
    if tensor.dtype in (torch.float16, torch.bfloat16):
        return (tensor.float() * factor).to(tensor.dtype)
    return tensor * factor


def reducescatter_async(tensor, name=None, op=Average, process_set=global_process_set, prescale_factor=1.0,
                        postscale_factor=1.0):
    """Starts a reducescatter; synchronize() returns this rank's share."""
    ps = check_process_set(process_set, "reducescatter_async")
    op = _reducescatter_op(op, "reducescatter_async")
    handle = started(_C.reducescatter_async, _scaled(tensor, prescale_factor), op, name or "", ps)
    if postscale_factor == 1.0:
        return handle
    return PostprocessedHandle(handle, lambda t: _scaled(t, postscale_factor))


class _Reducescatter(torch.autograd.Function):
    @staticmethod
    def forward(ctx, tensor, name, op, ps):
        ctx.op = op
        ctx.ps = ps
        return started(_C.reducescatter_async, tensor, op, name, ps).wait()

    @staticmethod
    def backward(ctx, grad_output):
        # Horovod's rule, which treats each rank's upstream gradient as that of the job's one loss (as allreduce's
        # does): the upstream gradients allgathered, times the number of ranks for Sum.
        grad = _C.allgather_async(grad_output.contiguous(), "", ctx.ps).wait()
        if ctx.op == Sum:
            grad = grad * len(_core.process_set_ranks(ctx.ps))
        return grad, None, None, None


def reducescatter(tensor, name=None, compression=Compression.none, op=Average, process_set=global_process_set,
                  prescale_factor=1.0, postscale_factor=1.0):
    """Reduces `tensor` over all ranks and returns this rank's share of dimension 0."""
    ps = check_process_set(process_set, "reducescatter")
    op = _reducescatter_op(op, "reducescatter")
    compressed, ctx = compression.compress(_scaled(tensor, prescale_factor))
    if _differentiable(compressed):
        reduced = _Reducescatter.apply(compressed, name or "", op, ps)
    else:
        reduced = started(_C.reducescatter_async, compressed, op, name or "", ps).wait()
    return _scaled(compression.decompress(reduced, ctx), postscale_factor)
