"""hvd.tensorflow's ops: hvd's TensorFlow kernels (hvd/tensorflow/_hvd_ops.so, C++ over libhvd) wrapped as
horovod.tensorflow.mpi_ops names them, with their gradients. Every op is a graph node of an hvd type, so it runs
the same eagerly, inside tf.function and in tf.compat.v1 graphs; tensors go straight from TensorFlow's buffers to
libhvd. In a graph an op without a name is negotiated under its node's name (the same on every rank that built
the same graph); eagerly, by call order, as libhvd names unnamed ops.
"""

import os

import tensorflow as tf
from tensorflow.python.framework import ops

from hvd.common import _core
from hvd.common.basics import (Adasum, Average, Max, Min, Product, Sum, ccl_built, cross_rank, cross_size,  # noqa: F401
                               cuda_built, ddl_built, gloo_built, gloo_enabled, init, is_homogeneous, is_initialized,
                               local_rank, local_size, mpi_built, mpi_enabled, mpi_threads_supported, nccl_built,
                               rank, rocm_built, shutdown, size, start_timeline, stop_timeline)
from hvd.common.process_sets import (ProcessSet, add_process_set, check_process_set, global_process_set,  # noqa: F401
                                     remove_process_set)

_LIB_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_hvd_ops.so")
try:
    _LIB = tf.load_op_library(_LIB_PATH)
except (tf.errors.NotFoundError, OSError) as e:
    raise ImportError(f"hvd.tensorflow: cannot load its op library {_LIB_PATH} ({e}); it is built for the TensorFlow "
                      "of scripts/framework-python.sh tensorflow (TensorFlow " + tf.__version__ + " here)") from e


def _executing_eagerly():
    return tf.executing_eagerly()


def _naming(name):
    """The op's name attributes (the user's name, else the node's name in a graph, else call order when eager), and
    whether it is called eagerly (its kernel then waits on this thread, running libhvd's cycle itself)."""
    eager = _executing_eagerly()
    return {"tensor_name": name or "", "name_from_node": name is None and not eager, "eager": eager}


def _set_id(process_set, what):
    return check_process_set(process_set, what)


def _set_object(process_set_id):
    """The ProcessSet of a gradient's forward op, from the id its attribute holds."""
    if process_set_id == 0:
        return global_process_set
    from hvd.common.process_sets import process_sets
    for ps in process_sets():
        if ps.process_set_id == process_set_id:
            return ps
    raise ValueError(f"hvd.tensorflow: process set {process_set_id} is no longer registered")


def _op_name(name, kind):
    # A node name TensorFlow accepts, from the user's tensor name.
    if name is None:
        return None
    return kind + "_" + "".join(c if c.isalnum() or c in "_-." else "_" for c in name)


def _allreduce(tensor, name=None, op=Sum, prescale_factor=1.0, postscale_factor=1.0, ignore_name_scope=False,
               process_set=global_process_set):
    """The raw allreduce op (Horovod's _allreduce): libhvd's reduction, its scale factors, no compression."""
    return _LIB.hvd_allreduce(tensor, reduce_op=int(op), prescale_factor=prescale_factor,
                              postscale_factor=postscale_factor,
                              process_set_id=_set_id(process_set, "allreduce"),
                              name=_op_name(name, "HvdAllreduce"), **_naming(name))


@ops.RegisterGradient("HvdAllreduce")
def _allreduce_grad(op, grad):
    return _LIB.hvd_allreduce(grad, reduce_op=op.get_attr("reduce_op"),
                              prescale_factor=op.get_attr("prescale_factor"),
                              postscale_factor=op.get_attr("postscale_factor"),
                              process_set_id=op.get_attr("process_set_id"), **_naming(None))


def _grouped_allreduce(tensors, name=None, op=Sum, prescale_factor=1.0, postscale_factor=1.0,
                       ignore_name_scope=False, process_set=global_process_set):
    return _LIB.hvd_grouped_allreduce(list(tensors), reduce_op=int(op), prescale_factor=prescale_factor,
                                      postscale_factor=postscale_factor,
                                      process_set_id=_set_id(process_set, "grouped_allreduce"),
                                      name=_op_name(name, "HvdGroupedAllreduce"), **_naming(name))


@ops.RegisterGradient("HvdGroupedAllreduce")
def _grouped_allreduce_grad(op, *grads):
    return _LIB.hvd_grouped_allreduce(list(grads), reduce_op=op.get_attr("reduce_op"),
                                      prescale_factor=op.get_attr("prescale_factor"),
                                      postscale_factor=op.get_attr("postscale_factor"),
                                      process_set_id=op.get_attr("process_set_id"), **_naming(None))


def allgather(tensor, name=None, ignore_name_scope=False, process_set=global_process_set):
    """Every rank's tensor concatenated along dimension 0 (which may differ per rank), in rank order of the set."""
    return _LIB.hvd_allgather(tensor, process_set_id=_set_id(process_set, "allgather"),
                              name=_op_name(name, "HvdAllgather"), **_naming(name))


def _split_for_this_rank(grad, x, process_set):
    # The rows this rank contributed: every rank's first dimension, allgathered, splits the gradient.
    rows = tf.reshape(tf.shape(x, out_type=tf.int64)[0], [1])
    all_rows = allgather(rows, process_set=process_set)
    return tf.split(grad, num_or_size_splits=all_rows, axis=0)[process_set.rank()]


@ops.RegisterGradient("HvdAllgather")
def _allgather_grad(op, grad):
    ps = _set_object(op.get_attr("process_set_id"))
    grad = _allreduce(grad, op=Average, process_set=ps)
    return _split_for_this_rank(grad, op.inputs[0], ps)


def grouped_allgather(tensors, name=None, ignore_name_scope=False, process_set=global_process_set):
    """allgather of each tensor, negotiated together."""
    return _LIB.hvd_grouped_allgather(list(tensors), process_set_id=_set_id(process_set, "grouped_allgather"),
                                      name=_op_name(name, "HvdGroupedAllgather"), **_naming(name))


@ops.RegisterGradient("HvdGroupedAllgather")
def _grouped_allgather_grad(op, *grads):
    ps = _set_object(op.get_attr("process_set_id"))
    # One allreduce each: TensorFlow may hand a float32 zero gradient beside float64 ones.
    return [_split_for_this_rank(_allreduce(g, op=Average, process_set=ps), x, ps) for g, x in zip(grads, op.inputs)]


def broadcast(tensor, root_rank, name=None, ignore_name_scope=False, process_set=global_process_set):
    """root_rank's tensor on every rank of the set."""
    return _LIB.hvd_broadcast(tensor, root_rank=root_rank, process_set_id=_set_id(process_set, "broadcast"),
                              name=_op_name(name, "HvdBroadcast"), **_naming(name))


@ops.RegisterGradient("HvdBroadcast")
def _broadcast_grad(op, grad):
    ps = _set_object(op.get_attr("process_set_id"))
    reduced = _allreduce(grad, op=Average, process_set=ps)
    return reduced if rank() == op.get_attr("root_rank") else reduced * 0


def broadcast_(variables, root_rank, name=None, process_set=global_process_set):
    """In place: each variable takes root_rank's value. Returns the variables' new values."""
    values = [broadcast(v, root_rank, name=None if name is None else f"{name}.{i}", process_set=process_set)
              for i, v in enumerate(variables)]
    return [v.assign(value) for v, value in zip(variables, values)]


def alltoall(tensor, splits=None, name=None, ignore_name_scope=False, process_set=global_process_set):
    """Rows of dimension 0 go to each rank by `splits` (equal parts without); returns the rows received, and with
    `splits` also how many came from each rank."""
    splits_tensor = tf.cast(splits, tf.int32) if splits is not None else tf.constant([], dtype=tf.int32)
    output, received = _LIB.hvd_alltoall(tensor, splits_tensor, process_set_id=_set_id(process_set, "alltoall"),
                                         name=_op_name(name, "HvdAlltoall"), **_naming(name))
    return (output, received) if splits is not None else output


@ops.RegisterGradient("HvdAlltoall")
def _alltoall_grad(op, grad, _received_splits_grad):
    ps = _set_object(op.get_attr("process_set_id"))
    back, _ = alltoall(grad, splits=op.outputs[1], process_set=ps)
    return [back, None]


def _reducescatter(tensor, name=None, op=Sum, ignore_name_scope=False, process_set=global_process_set,
                   prescale_factor=1.0, postscale_factor=1.0):
    ps_id = _set_id(process_set, "reducescatter")
    tensor = tensor * prescale_factor if prescale_factor != 1.0 else tensor
    out = _LIB.hvd_reducescatter(tensor, reduce_op=int(op), process_set_id=ps_id,
                                 name=_op_name(name, "HvdReducescatter"), **_naming(name))
    return out * postscale_factor if postscale_factor != 1.0 else out


@ops.RegisterGradient("HvdReducescatter")
def _reducescatter_grad(op, grad):
    ps = _set_object(op.get_attr("process_set_id"))
    if op.get_attr("reduce_op") == int(Sum):
        grad = grad * ps.size()
    return allgather(grad, process_set=ps)


def _grouped_reducescatter(tensors, name=None, op=Sum, ignore_name_scope=False, process_set=global_process_set,
                           prescale_factor=1.0, postscale_factor=1.0):
    ps_id = _set_id(process_set, "grouped_reducescatter")
    tensors = [t * prescale_factor for t in tensors] if prescale_factor != 1.0 else list(tensors)
    outs = _LIB.hvd_grouped_reducescatter(tensors, reduce_op=int(op), process_set_id=ps_id,
                                          name=_op_name(name, "HvdGroupedReducescatter"), **_naming(name))
    return [o * postscale_factor for o in outs] if postscale_factor != 1.0 else outs


@ops.RegisterGradient("HvdGroupedReducescatter")
def _grouped_reducescatter_grad(op, *grads):
    ps = _set_object(op.get_attr("process_set_id"))
    if op.get_attr("reduce_op") == int(Sum):
        grads = [g * ps.size() for g in grads]
    return [allgather(g, process_set=ps) for g in grads]


def join():
    """This rank has no more data; returns the last rank to join, once every rank has."""
    return _LIB.hvd_join()


def barrier(process_set=global_process_set):
    """Returns once every rank of the set has called barrier()."""
    return _LIB.hvd_barrier(process_set_id=_set_id(process_set, "barrier"))


def size_op(process_set_id=0, name=None):
    """The number of ranks (of the set), read when the graph runs, not when it is built."""
    return _LIB.hvd_size(process_set_id=process_set_id, name=name)


def local_size_op(name=None):
    return _LIB.hvd_local_size(name=name)


def rank_op(name=None):
    return _LIB.hvd_rank(name=name)


def local_rank_op(name=None):
    return _LIB.hvd_local_rank(name=name)


def process_set_included_op(process_set_id=0, name=None):
    """1 when this rank is in the set, 0 when not (read when the graph runs)."""
    return _LIB.hvd_process_set_included(process_set_id=process_set_id, name=name)


for _type in ("HvdJoin", "HvdBarrier", "HvdSize", "HvdLocalSize", "HvdRank", "HvdLocalRank",
              "HvdProcessSetIncluded"):
    ops.NotDifferentiable(_type)
