"""grouped_allgather and grouped_reducescatter, as horovod.torch's: a list of tensors in one call, one result per
tensor, with gradients by the single ops' rules (allgather: the upstream gradient averaged over ranks, each rank
taking its own rows; reducescatter: the upstream gradients allgathered, times the number of ranks for Sum).

Each tensor is its own op, named `<name>.<i>` (unnamed: from call order, like any unnamed op) and enqueued at once,
so the engine fuses the ready ones as it fuses any ops; the group's handle is done when all are.
"""

import torch

from hvd.common import _core
from hvd.torch import _C
from hvd.torch.basics import Average, Sum, check_process_set, global_process_set, started
from hvd.torch.compression import Compression
from hvd.torch.mpi_ops import _differentiable
from hvd.torch.reducescatter import _reducescatter_op, _scaled


class GroupHandle:
    """The handles of a group's ops; synchronize() returns the list of their results, in tensor order."""

    def __init__(self, handles, finish=None):
        self._handles, self._finish, self._result = handles, finish, None

    def poll(self):
        return all(h.poll() for h in self._handles)

    def wait(self):
        if self._result is None:
            results = [h.wait() for h in self._handles]
            self._result = [self._finish(r) for r in results] if self._finish else results
        return self._result


def _names(name, count):
    return [f"{name}.{i}" if name else "" for i in range(count)]


def _enqueue_all(start, tensors, name, ps=0):
    """Starts one op per tensor; if one is refused, waits for those already started before raising."""
    handles = []
    try:
        for tensor, op_name in zip(tensors, _names(name, len(tensors))):
            handles.append(started(start, tensor, op_name, ps))
    except BaseException:
        for h in handles:
            try:
                h.wait()
            except Exception:  # the refusal is the error to report
                pass
        raise
    return handles


# ---- grouped allgather -----------------------------------------------------------------------------------------

def grouped_allgather_async(tensors, name=None, process_set=global_process_set):
    """Starts an allgather of each tensor; synchronize() returns the list of gathered tensors."""
    ps = check_process_set(process_set, "grouped_allgather_async")
    return GroupHandle(_enqueue_all(_C.allgather_async, list(tensors), name, ps))


class _GroupedAllgather(torch.autograd.Function):
    @staticmethod
    def forward(ctx, name, ps, *tensors):
        ctx.rows = [t.shape[0] if t.dim() > 0 else 1 for t in tensors]
        ctx.ps = ps
        return tuple(GroupHandle(_enqueue_all(_C.allgather_async, list(tensors), name, ps)).wait())

    @staticmethod
    def backward(ctx, *grads):
        grads = [g.contiguous() for g in grads]
        reduced = _C.grouped_allreduce_async(grads, False, Average, 1.0, 1.0, "", ctx.ps).wait()
        rows = _C.allgather_async(torch.tensor(ctx.rows, dtype=torch.int64), "", ctx.ps).wait()
        rows = rows.view(-1, len(grads))
        offsets = rows[:_core.process_set_rank(ctx.ps)].sum(0).tolist()
        return (None, None, *[g.narrow(0, int(o), n) for g, o, n in zip(reduced, offsets, ctx.rows)])


def grouped_allgather(tensors, name=None, process_set=global_process_set):
    """Returns every tensor concatenated over ranks along dimension 0 (sizes may differ per rank)."""
    ps = check_process_set(process_set, "grouped_allgather")
    tensors = list(tensors)
    if _differentiable(*tensors):
        return list(_GroupedAllgather.apply(name or "", ps, *tensors))
    return grouped_allgather_async(tensors, name, process_set).wait()


# ---- grouped reducescatter -------------------------------------------------------------------------------------

def grouped_reducescatter_async(tensors, name=None, op=Average, process_set=global_process_set, prescale_factor=1.0,
                                postscale_factor=1.0):
    """Starts a reducescatter of each tensor; synchronize() returns the list of this rank's shares."""
    ps = check_process_set(process_set, "grouped_reducescatter_async")
    op = _reducescatter_op(op, "grouped_reducescatter_async")
    scaled = [_scaled(t, prescale_factor) for t in tensors]
    handles = _enqueue_all(lambda t, n, p: _C.reducescatter_async(t, op, n, p), scaled, name, ps)
    return GroupHandle(handles, None if postscale_factor == 1.0 else lambda t: _scaled(t, postscale_factor))


class _GroupedReducescatter(torch.autograd.Function):
    @staticmethod
    def forward(ctx, name, op, ps, *tensors):
        ctx.op = op
        ctx.ps = ps
        return tuple(GroupHandle(_enqueue_all(lambda t, n, p: _C.reducescatter_async(t, op, n, p), list(tensors),
                                              name, ps)).wait())

    @staticmethod
    def backward(ctx, *grads):
        gathered = GroupHandle([_C.allgather_async(g.contiguous(), "", ctx.ps) for g in grads]).wait()
        if ctx.op == Sum:  # Horovod's rule, as for reducescatter
            set_size = len(_core.process_set_ranks(ctx.ps))
            gathered = [g * set_size for g in gathered]
        return (None, None, None, *gathered)


def grouped_reducescatter(tensors, name=None, compression=Compression.none, op=Average,
                          process_set=global_process_set, prescale_factor=1.0, postscale_factor=1.0):
    """Returns, for each tensor, this rank's share of it reduced over all ranks."""
    ps = check_process_set(process_set, "grouped_reducescatter")
    op = _reducescatter_op(op, "grouped_reducescatter")
    compressed, ctxs = zip(*[compression.compress(_scaled(t, prescale_factor)) for t in tensors]) \
        if tensors else ((), ())
    if _differentiable(*compressed):
        reduced = _GroupedReducescatter.apply(name or "", op, ps, *compressed)
    else:
        handles = _enqueue_all(lambda t, n, p: _C.reducescatter_async(t, op, n, p), list(compressed), name, ps)
        reduced = GroupHandle(handles).wait()
    return [_scaled(compression.decompress(t, c), postscale_factor) for t, c in zip(reduced, ctxs)]
