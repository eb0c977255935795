"""horovod.mxnet's collectives on MXNet NDArrays, over libhvd through hvd.mxnet._mx.

Each op is pushed on MXNet's engine and returns at once: its output is an NDArray that MXNet's own dependency
tracking makes wait (wait_to_read(), asnumpy(), or the next op that reads it). allgather and alltoall first learn
their output's shape from the other ranks (a blocking exchange, as Horovod's calls block). Unnamed ops are named
here in call order, so every rank must call them in the same order.

An op that fails in libhvd still completes on MXNet's engine (its output is left as it was); its error is raised
as HorovodInternalError by the next hvd.mxnet call on this rank, and right away by the calls that wait
(allgather, alltoall, the trainer's step): MXNet 1.9's C API cannot carry an error into wait_to_read().
"""

import itertools

import mxnet as mx
import numpy as np

from hvd.common import _core
from hvd.common.exceptions import HorovodInternalError, refine
from hvd.common.process_sets import check_process_set, global_process_set
from hvd.common.basics import Average, Sum
from hvd.mxnet import _mx

_counters = {}
# What _mx maps to hvd's types (mxnet_library.cc, to_hvd_dtype); checked here so a bad call raises at once.
_DTYPES = {"float16", "float32", "float64", "uint8", "int8", "int16", "uint16", "int32", "int64", "bool"}


def _name(kind, name):
    """An explicit name for every op: MXNet may run independent engine ops in any order, so hvd's own call-order
    naming (at enqueue, on an engine thread) could differ between ranks."""
    if name is not None:
        return str(name)
    counter = _counters.setdefault(kind, itertools.count())
    return f"mxnet.{kind}.noname.{next(counter)}"


def raise_pending_error():
    """Raises the oldest error of an op that already completed on MXNet's engine, if any."""
    try:
        _mx.raise_error()
    except HorovodInternalError as e:
        raise refine(e) from None


def _call(fn, *args):
    raise_pending_error()
    try:
        fn(*args)
    except HorovodInternalError as e:
        raise refine(e) from None


def _wait(*arrays):
    for a in arrays:
        a.wait_to_read()
    raise_pending_error()


def _handle(array):
    if not isinstance(array, mx.nd.NDArray):
        raise ValueError(f"hvd.mxnet: expected an mxnet.nd.NDArray, got {type(array).__name__}")
    if np.dtype(array.dtype).name not in _DTYPES:
        raise ValueError(f"hvd.mxnet: dtype {np.dtype(array.dtype).name} is not supported (supported: "
                         f"{', '.join(sorted(_DTYPES))})")
    if array.context.device_type == "gpu":
        raise ValueError("hvd.mxnet: GPU NDArrays are not supported yet; copy to mx.cpu() first")
    if array.stype != "default":
        raise ValueError(f"hvd.mxnet: sparse NDArrays ({array.stype}) are not supported; use tostype('default')")
    return array.handle.value


def _reduce_op(op, average, what):
    if op is not None and average is not None:
        raise ValueError(f"hvd.mxnet.{what}: give op or average, not both")
    if op is not None:
        if not isinstance(op, _core.ReduceOp):
            raise ValueError(f"hvd.mxnet.{what}: op={op!r} is not hvd.Average, Sum, Adasum, Min, Max or Product")
        return op
    return Sum if average is False else Average


def _allreduce(tensors, outputs, average, name, priority, prescale_factor, postscale_factor, process_set, op,
               what):
    ps = check_process_set(process_set, what)
    op = _reduce_op(op, average, what)
    _call(_mx.allreduce, [_handle(t) for t in tensors], [_handle(o) for o in outputs], op, float(prescale_factor),
          float(postscale_factor), _name("allreduce", name), ps, int(priority))


def allreduce(tensor, average=None, name=None, priority=0, prescale_factor=1.0, postscale_factor=1.0,
              process_set=global_process_set, op=None):
    """Returns a new NDArray: `tensor` averaged (or reduced by `op`) over the ranks; `tensor` is unchanged."""
    output = mx.nd.empty(tensor.shape, ctx=tensor.context, dtype=tensor.dtype)
    _allreduce([tensor], [output], average, name, priority, prescale_factor, postscale_factor, process_set, op,
               "allreduce")
    return output


def allreduce_(tensor, average=None, name=None, priority=0, prescale_factor=1.0, postscale_factor=1.0,
               process_set=global_process_set, op=None):
    """Reduces `tensor` over the ranks in place and returns it."""
    _allreduce([tensor], [tensor], average, name, priority, prescale_factor, postscale_factor, process_set, op,
               "allreduce_")
    return tensor


def grouped_allreduce(tensors, average=None, name=None, priority=0, prescale_factor=1.0, postscale_factor=1.0,
                      process_set=global_process_set, op=None):
    """New NDArrays, each tensor reduced over the ranks; negotiated and fused as one op."""
    if not tensors:
        return []
    outputs = [mx.nd.empty(t.shape, ctx=t.context, dtype=t.dtype) for t in tensors]
    _allreduce(list(tensors), outputs, average, name, priority, prescale_factor, postscale_factor, process_set, op,
               "grouped_allreduce")
    return outputs


def grouped_allreduce_(tensors, average=None, name=None, priority=0, prescale_factor=1.0, postscale_factor=1.0,
                       process_set=global_process_set, op=None):
    """Reduces each tensor in place, as one op; returns them."""
    if not tensors:
        return tensors
    _allreduce(list(tensors), list(tensors), average, name, priority, prescale_factor, postscale_factor,
               process_set, op, "grouped_allreduce_")
    return tensors


def broadcast_(tensor, root_rank, name=None, priority=0, process_set=global_process_set):
    """Overwrites `tensor` with root_rank's, in place; returns it."""
    ps = check_process_set(process_set, "broadcast_")
    _call(_mx.broadcast, _handle(tensor), int(root_rank), _name("broadcast", name), ps, int(priority))
    return tensor


def broadcast(tensor, root_rank, name=None, priority=0, process_set=global_process_set):
    """Returns a new NDArray holding root_rank's `tensor`; `tensor` is unchanged."""
    return broadcast_(tensor.copy(), root_rank, name, priority, process_set)


def _set_rank(process_set, ps):
    return _core.process_set_rank(ps) if ps else _core.rank()


def allgather(tensor, name=None, priority=0, process_set=global_process_set):
    """Every rank's `tensor` concatenated along dimension 0 (which may differ between ranks)."""
    ps = check_process_set(process_set, "allgather")
    if tensor.ndim == 0:
        raise ValueError("hvd.mxnet.allgather: the tensor needs at least one dimension")
    raise_pending_error()
    name = _name("allgather", name)
    rows = _core.allgather_int64(int(tensor.shape[0]), name + "/rows", ps)
    output = mx.nd.empty((int(sum(rows)),) + tuple(tensor.shape[1:]), ctx=tensor.context, dtype=tensor.dtype)
    _call(_mx.allgather, _handle(tensor), _handle(output), name, ps, int(priority))
    _wait(output)
    return output


def grouped_allgather(tensors, name=None, priority=0, process_set=global_process_set):
    """allgather of each tensor (each its own op, named <name>.<i>)."""
    base = _name("grouped_allgather", name)
    return [allgather(t, f"{base}.{i}", priority, process_set) for i, t in enumerate(tensors)]


def _alltoall_splits(tensor, splits, set_size, what):
    rows = int(tensor.shape[0])
    if splits is None:
        if rows % set_size:
            raise ValueError(f"hvd.mxnet.{what}: dimension 0 ({rows}) does not divide among {set_size} ranks; "
                             "pass splits")
        return [rows // set_size] * set_size
    if isinstance(splits, mx.nd.NDArray):
        splits = splits.asnumpy()
    splits = [int(s) for s in np.asarray(splits).reshape(-1)]
    if len(splits) != set_size or any(s < 0 for s in splits) or sum(splits) != rows:
        raise ValueError(f"hvd.mxnet.{what}: splits {splits} must be {set_size} counts >= 0 summing to dimension "
                         f"0 ({rows})")
    return splits


def alltoall(tensor, splits=None, name=None, priority=0, process_set=global_process_set):
    """Sends splits[i] rows of `tensor` to rank i of the set and returns the rows received, in rank order; with
    `splits`, also the received splits (an int32 NDArray), as Horovod."""
    ps = check_process_set(process_set, "alltoall")
    if tensor.ndim == 0:
        raise ValueError("hvd.mxnet.alltoall: the tensor needs at least one dimension")
    raise_pending_error()
    set_size = process_set.size()
    sent = _alltoall_splits(tensor, splits, set_size, "alltoall")
    name = _name("alltoall", name)
    everyone = _core.allgather_bytes(np.asarray(sent, dtype=np.int64).tobytes(), name + "/splits", ps)
    me = _set_rank(process_set, ps)
    received = [int(np.frombuffer(b, dtype=np.int64)[me]) for b in everyone]
    output = mx.nd.empty((sum(received),) + tuple(tensor.shape[1:]), ctx=tensor.context, dtype=tensor.dtype)
    _call(_mx.alltoall, _handle(tensor), _handle(output), sent, name, ps, int(priority))
    _wait(output)
    if splits is None:
        return output
    return output, mx.nd.array(received, ctx=mx.cpu(), dtype="int32")


def reducescatter(tensor, op=Average, name=None, priority=0, process_set=global_process_set):
    """`tensor` reduced over the ranks, split along dimension 0: this rank's share (the first ranks get one more
    row when it does not divide)."""
    ps = check_process_set(process_set, "reducescatter")
    if tensor.ndim == 0:
        raise ValueError("hvd.mxnet.reducescatter: the tensor needs at least one dimension")
    op = _reduce_op(op, None, "reducescatter")
    set_size, me = process_set.size(), _set_rank(process_set, ps)
    rows = int(tensor.shape[0])
    mine = rows // set_size + (1 if me < rows % set_size else 0)
    output = mx.nd.empty((mine,) + tuple(tensor.shape[1:]), ctx=tensor.context, dtype=tensor.dtype)
    _call(_mx.reducescatter, _handle(tensor), _handle(output), op, _name("reducescatter", name), ps, int(priority))
    return output


def barrier(process_set=global_process_set):
    """Returns once every rank of the set called it."""
    ps = check_process_set(process_set, "barrier")
    raise_pending_error()
    try:
        _core.barrier(ps)
    except HorovodInternalError as e:
        raise refine(e) from None


def join():
    """This rank has no more data; returns the last rank to join."""
    raise_pending_error()
    mx.nd.waitall()  # ops this rank already pushed run before it stops contributing
    try:
        return _core.join()
    except HorovodInternalError as e:
        raise refine(e) from None
