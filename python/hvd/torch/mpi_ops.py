"""horovod.torch's collectives on torch tensors, over libhvd through hvd_torch (hvd.torch._C).

Each op has an _async form returning a handle for poll()/synchronize(); allreduce and broadcast also have in-place
`_` forms. Ops are matched across ranks by name; unnamed ops are named from call order, so every rank must call
them in the same order. allreduce, grouped_allreduce, allgather, broadcast, alltoall and reducescatter carry
gradients (autograd Functions, as in Horovod). Errors raise HorovodInternalError with libhvd's message.
"""

import warnings

import torch

from hvd.common import _core
from hvd.common.exceptions import blocking
from hvd.torch import _C
from hvd.torch.basics import (Average, HorovodInternalError, Sum, refine, check_process_set, global_process_set,
                              rank, started)
from hvd.torch.compression import Compression


def _reduce_op(op, average, what):
    if average is not None:
        if op is not None:
            raise ValueError(f"hvd.torch.{what}: give op or average (deprecated), not both")
        warnings.warn(f"hvd.torch.{what}: average= is deprecated; use op=hvd.Average or op=hvd.Sum",
                      DeprecationWarning, stacklevel=3)
        return Average if average else Sum
    if op is None:
        return Average
    if not isinstance(op, _core.ReduceOp):
        raise ValueError(f"hvd.torch.{what}: op={op!r} is not a reduction; use hvd.Average, hvd.Sum, hvd.Adasum, "
                         "hvd.Min, hvd.Max or hvd.Product")
    return op


def _differentiable(*tensors):
    return torch.is_grad_enabled() and any(t.requires_grad for t in tensors)


def _is_integer(tensor):
    return not tensor.dtype.is_floating_point and not tensor.dtype.is_complex and tensor.dtype != torch.bool


def _int_scaled(tensor, factor):
    """Horovod's rule for integer tensors: scaled in float64, then cast back (truncated toward zero)."""
    return (tensor.to(torch.float64) * factor).to(tensor.dtype)


class PostprocessedHandle:
    """A handle whose result goes through `finish` when it is collected (an integer postscale, a group's list)."""

    def __init__(self, handle, finish):
        self._handle, self._finish, self._result, self._done = handle, finish, None, False

    def poll(self):
        return self._handle.poll()

    def wait(self):
        if not self._done:
            self._result, self._done = self._finish(self._handle.wait()), True
        return self._result


def _integer_scales(tensor, op, prescale_factor, postscale_factor, process_set=global_process_set):
    """An integer tensor that needs Horovod's integer rules here, around libhvd: scale factors (each rank's tensor
    scaled in float64 and cast back before the sum, the result the same way after it) and Average (the sum
    divided by the number of ranks, truncated toward zero as Horovod's float64 scaling casts back). Returns
    (the tensor to send, the op for libhvd, a function finishing the result in place or None), or None when
    libhvd's own reduction is Horovod's."""
    if not _is_integer(tensor):
        return None
    average = op == Average
    if not average and prescale_factor == 1.0 and postscale_factor == 1.0:
        return None
    scaled = _int_scaled(tensor, prescale_factor) if prescale_factor != 1.0 else tensor

    def finish(result):
        if average:
            result.copy_(torch.div(result, process_set.size(), rounding_mode="trunc"))
        if postscale_factor != 1.0:
            result.copy_(_int_scaled(result, postscale_factor))
        return result

    return scaled, (Sum if average else op), finish


def _allreduce_start(tensor, in_place, average, name, op, prescale_factor, postscale_factor, process_set, caller):
    """allreduce_async and allreduce_async_: integer tensors scaled as Horovod scales them, then started."""
    ps = check_process_set(process_set, caller)
    op = _reduce_op(op, average, caller)
    ints = _integer_scales(tensor, op, prescale_factor, postscale_factor, process_set)
    if ints is None:
        return started(_C.allreduce_async, tensor, in_place, op, prescale_factor, postscale_factor, name or "", ps)
    scaled, wire_op, finish = ints
    if in_place:
        tensor.copy_(scaled)
        scaled = tensor
    return PostprocessedHandle(started(_C.allreduce_async, scaled, in_place, wire_op, 1.0, 1.0, name or "", ps),
                               finish)


def allreduce_async(tensor, average=None, name=None, op=None, prescale_factor=1.0, postscale_factor=1.0,
                    process_set=global_process_set):
    """Starts reducing `tensor` over all ranks into a new tensor; returns a handle."""
    return _allreduce_start(tensor, False, average, name, op, prescale_factor, postscale_factor, process_set,
                            "allreduce_async")


def allreduce_async_(tensor, average=None, name=None, op=None, prescale_factor=1.0, postscale_factor=1.0,
                     process_set=global_process_set):
    """Starts reducing `tensor` over all ranks in place; returns a handle."""
    return _allreduce_start(tensor, True, average, name, op, prescale_factor, postscale_factor, process_set,
                            "allreduce_async_")


class _Allreduce(torch.autograd.Function):
    @staticmethod
    def forward(ctx, tensor, name, op, prescale_factor, postscale_factor, ps):
        ctx.args = (op, prescale_factor, postscale_factor, ps)
        return blocking(_C.allreduce, tensor, False, op, prescale_factor, postscale_factor, name, ps)

    @staticmethod
    def backward(ctx, grad_output):
        op, prescale_factor, postscale_factor, ps = ctx.args
        grad = _C.allreduce(grad_output.contiguous(), False, op, prescale_factor, postscale_factor, "", ps)
        return grad, None, None, None, None, None


def allreduce(tensor, average=None, name=None, compression=Compression.none, op=None, prescale_factor=1.0,
              postscale_factor=1.0, process_set=global_process_set):
    """Returns `tensor` reduced over all ranks (Average unless op says otherwise); `tensor` is unchanged."""
    ps = check_process_set(process_set, "allreduce")
    op = _reduce_op(op, average, "allreduce")
    ints = _integer_scales(tensor, op, prescale_factor, postscale_factor, process_set)
    if ints is not None:  # integers carry no gradient
        scaled, wire_op, finish = ints
        return finish(blocking(_C.allreduce, scaled, False, wire_op, 1.0, 1.0, name or "", ps))
    compressed, ctx = compression.compress(tensor)
    if _differentiable(compressed):
        reduced = _Allreduce.apply(compressed, name or "", op, prescale_factor, postscale_factor, ps)
    else:
        reduced = blocking(_C.allreduce, compressed, False, op, prescale_factor, postscale_factor, name or "", ps)
    return compression.decompress(reduced, ctx)


def allreduce_(tensor, average=None, name=None, op=None, prescale_factor=1.0, postscale_factor=1.0,
               process_set=global_process_set):
    """Reduces `tensor` over all ranks in place and returns it."""
    ps = check_process_set(process_set, "allreduce_")
    op = _reduce_op(op, average, "allreduce_")
    if _integer_scales(tensor, op, prescale_factor, postscale_factor, process_set) is not None:
        return allreduce_async_(tensor, None, name, op, prescale_factor, postscale_factor, process_set).wait()
    return blocking(_C.allreduce, tensor, True, op, prescale_factor, postscale_factor, name or "", ps)


# ---- grouped allreduce: negotiated and fused as one ------------------------------------------------------------

def _grouped_allreduce_start(tensors, in_place, average, name, op, prescale_factor, postscale_factor, process_set,
                             caller):
    ps = check_process_set(process_set, caller)
    op = _reduce_op(op, average, caller)
    return started(_C.grouped_allreduce_async, list(tensors), in_place, op, prescale_factor, postscale_factor,
                   name or "", ps)


def grouped_allreduce_async(tensors, average=None, name=None, op=None, prescale_factor=1.0, postscale_factor=1.0,
                            process_set=global_process_set):
    return _grouped_allreduce_start(tensors, False, average, name, op, prescale_factor, postscale_factor,
                                    process_set, "grouped_allreduce_async")


def grouped_allreduce_async_(tensors, average=None, name=None, op=None, prescale_factor=1.0, postscale_factor=1.0,
                             process_set=global_process_set):
    return _grouped_allreduce_start(tensors, True, average, name, op, prescale_factor, postscale_factor,
                                    process_set, "grouped_allreduce_async_")


class _GroupedAllreduce(torch.autograd.Function):
    @staticmethod
    def forward(ctx, name, op, prescale_factor, postscale_factor, ps, *tensors):
        ctx.args = (op, prescale_factor, postscale_factor, ps)
        return tuple(started(_C.grouped_allreduce_async, list(tensors), False, op, prescale_factor,
                             postscale_factor, name, ps).wait())

    @staticmethod
    def backward(ctx, *grads):
        op, prescale_factor, postscale_factor, ps = ctx.args
        reduced = _C.grouped_allreduce_async([g.contiguous() for g in grads], False, op, prescale_factor,
                                             postscale_factor, "", ps).wait()
        return (None, None, None, None, None, *reduced)


def grouped_allreduce(tensors, average=None, name=None, compression=Compression.none, op=None, prescale_factor=1.0,
                      postscale_factor=1.0, process_set=global_process_set):
    """Returns the list of `tensors`, each reduced over all ranks, as one fused operation."""
    ps = check_process_set(process_set, "grouped_allreduce")
    op = _reduce_op(op, average, "grouped_allreduce")
    compressed, ctxs = zip(*[compression.compress(t) for t in tensors]) if tensors else ((), ())
    if _differentiable(*compressed):
        reduced = _GroupedAllreduce.apply(name or "", op, prescale_factor, postscale_factor, ps, *compressed)
    else:
        reduced = started(_C.grouped_allreduce_async, list(compressed), False, op, prescale_factor,
                          postscale_factor, name or "", ps).wait()
    return [compression.decompress(t, ctx) for t, ctx in zip(reduced, ctxs)]


def grouped_allreduce_(tensors, average=None, name=None, op=None, prescale_factor=1.0, postscale_factor=1.0,
                       process_set=global_process_set):
    return grouped_allreduce_async_(tensors, average, name, op, prescale_factor, postscale_factor,
                                    process_set).wait()


# ---- allgather -------------------------------------------------------------------------------------------------

def allgather_async(tensor, name=None, process_set=global_process_set):
    ps = check_process_set(process_set, "allgather_async")
    return started(_C.allgather_async, tensor, name or "", ps)


class _Allgather(torch.autograd.Function):
    @staticmethod
    def forward(ctx, tensor, name, ps):
        ctx.rows = tensor.shape[0] if tensor.dim() > 0 else 1
        ctx.ps = ps
        return started(_C.allgather_async, tensor, name, ps).wait()

    @staticmethod
    def backward(ctx, grad_output):
        # Horovod's rule: the gradient is averaged over ranks, then each rank takes its own rows.
        grad = _C.allreduce(grad_output.contiguous(), False, Average, 1.0, 1.0, "", ctx.ps)
        rows = _C.allgather_async(torch.tensor([ctx.rows], dtype=torch.int64), "", ctx.ps).wait()
        offset = int(rows[:_core.process_set_rank(ctx.ps)].sum())
        return grad.narrow(0, offset, ctx.rows), None, None


def allgather(tensor, name=None, process_set=global_process_set):
    """Concatenates every rank's `tensor` along dimension 0 (its size may differ per rank)."""
    ps = check_process_set(process_set, "allgather")
    if _differentiable(tensor):
        return _Allgather.apply(tensor, name or "", ps)
    return started(_C.allgather_async, tensor, name or "", ps).wait()


# ---- broadcast -------------------------------------------------------------------------------------------------

def broadcast_async(tensor, root_rank, name=None, process_set=global_process_set):
    ps = check_process_set(process_set, "broadcast_async")
    return started(_C.broadcast_async, tensor, False, root_rank, name or "", ps)


def broadcast_async_(tensor, root_rank, name=None, process_set=global_process_set):
    ps = check_process_set(process_set, "broadcast_async_")
    return started(_C.broadcast_async, tensor, True, root_rank, name or "", ps)


class _Broadcast(torch.autograd.Function):
    @staticmethod
    def forward(ctx, tensor, root_rank, name, ps):
        ctx.root_rank = root_rank
        ctx.ps = ps
        return started(_C.broadcast_async, tensor, False, root_rank, name, ps).wait()

    @staticmethod
    def backward(ctx, grad_output):
        # Horovod's rule: the root gets the gradient averaged over ranks, the others zeros.
        grad = _C.allreduce(grad_output.contiguous(), False, Average, 1.0, 1.0, "", ctx.ps)
        if rank() != ctx.root_rank:
            grad = torch.zeros_like(grad)
        return grad, None, None, None


def broadcast(tensor, root_rank, name=None, process_set=global_process_set):
    """Returns root_rank's `tensor` on every rank; `tensor` is unchanged."""
    ps = check_process_set(process_set, "broadcast")
    if _differentiable(tensor):
        return _Broadcast.apply(tensor, root_rank, name or "", ps)
    return started(_C.broadcast_async, tensor, False, root_rank, name or "", ps).wait()


def broadcast_(tensor, root_rank, name=None, process_set=global_process_set):
    """Overwrites `tensor` with root_rank's, in place, and returns it."""
    return broadcast_async_(tensor, root_rank, name, process_set).wait()


# ---- alltoall --------------------------------------------------------------------------------------------------

def _split_list(splits):
    if splits is None:
        return []
    if torch.is_tensor(splits):
        if splits.dtype.is_floating_point or splits.dtype.is_complex or splits.dtype == torch.bool:
            # Horovod's rule (a ValueError): splits count rows.
            raise ValueError(f"hvd.torch.alltoall: splits is a {splits.dtype} tensor; pass an int32 tensor (or a "
                             "list of ints) of rows for each rank")
        return [int(s) for s in splits.tolist()]
    return [int(s) for s in splits]


def alltoall_async(tensor, splits=None, name=None, process_set=global_process_set):
    """Starts an alltoall; synchronize() returns (received rows, received splits as an int32 tensor)."""
    ps = check_process_set(process_set, "alltoall_async")
    return started(_C.alltoall_async, tensor, _split_list(splits), name or "", ps)


class _Alltoall(torch.autograd.Function):
    @staticmethod
    def forward(ctx, tensor, splits, name, ps):
        output, received = started(_C.alltoall_async, tensor, splits, name, ps).wait()
        ctx.received = received
        ctx.ps = ps
        ctx.mark_non_differentiable(received)
        return output, received

    @staticmethod
    def backward(ctx, grad_output, _):
        grad, _ = _C.alltoall_async(grad_output.contiguous(), _split_list(ctx.received), "", ctx.ps).wait()
        return grad, None, None, None


def alltoall(tensor, splits=None, name=None, process_set=global_process_set):
    """Sends splits[i] rows of dimension 0 to rank i (equal parts without splits). Returns the rows received, and,
    when splits was given, how many came from each rank."""
    ps = check_process_set(process_set, "alltoall")
    split_list = _split_list(splits)
    if _differentiable(tensor):
        output, received = _Alltoall.apply(tensor, split_list, name or "", ps)
    else:
        output, received = started(_C.alltoall_async, tensor, split_list, name or "", ps).wait()
    return output if splits is None else (output, received)


# ---- handles, barrier, join ------------------------------------------------------------------------------------

def poll(handle):
    """True once the op behind `handle` is done; synchronize() will then not block."""
    return handle.poll()


def synchronize(handle):
    """Waits for the op behind `handle` (without holding the GIL) and returns its result; raises its error."""
    return handle.wait()


def barrier(process_set=global_process_set):
    """Returns once every rank has called barrier()."""
    ps = check_process_set(process_set, "barrier")
    blocking(_core.barrier, ps)


def join(device=-1):
    """This rank has no more data: until every rank has joined, its part in other ranks' allreduces is zeros.
    Returns the last rank to join."""
    return _core.join()
