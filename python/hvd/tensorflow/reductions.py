"""The public reductions of hvd.tensorflow, as horovod.tensorflow has them: allreduce and grouped_allreduce over
tf.Tensor and tf.IndexedSlices (allgathered: values and indices), with compression and Horovod's reduce ops, and
reducescatter with its grouped form. Integer tensors follow Horovod's rule for scaling: scaled in float64 and
cast back, an Average truncated toward zero."""

import warnings

import tensorflow as tf

from hvd.common.basics import Adasum, Average, Sum
from hvd.common.process_sets import global_process_set
from hvd.tensorflow.compression import Compression
from hvd.tensorflow.mpi_ops import _allreduce, _grouped_allreduce, _grouped_reducescatter, _reducescatter, allgather


def _reduce_op(op, average, what):
    if average is not None:
        if op is not None:
            raise ValueError(f"hvd.tensorflow.{what}: give op or average (deprecated), not both")
        warnings.warn(f"hvd.tensorflow.{what}: average= is deprecated; use op=hvd.Average or op=hvd.Sum",
                      DeprecationWarning, stacklevel=3)
        return Average if average else Sum
    return Average if op is None else op


def _is_integer(tensor):
    return tensor.dtype.is_integer


def _int_scaled(tensor, factor):
    return tf.cast(tf.cast(tensor, tf.float64) * factor, tensor.dtype)


def _sparse_allreduce(tensor, op, prescale_factor, postscale_factor, process_set, name):
    if op == Adasum:
        raise NotImplementedError("hvd.tensorflow.allreduce: Adasum does not support tf.IndexedSlices; pass "
                                  "sparse_as_dense=True to DistributedOptimizer or DistributedGradientTape")
    if op not in (Sum, Average):
        raise NotImplementedError("hvd.tensorflow.allreduce: only Sum and Average support tf.IndexedSlices")
    if prescale_factor != 1.0 or postscale_factor != 1.0:
        raise NotImplementedError("hvd.tensorflow.allreduce: prescale_factor and postscale_factor do not support "
                                  "tf.IndexedSlices")
    values = allgather(tensor.values, name=None if name is None else name + ".values", process_set=process_set)
    indices = allgather(tensor.indices, name=None if name is None else name + ".indices", process_set=process_set)
    if op == Average:
        values = values / tf.cast(process_set.size(), values.dtype)
    return tf.IndexedSlices(values, indices, dense_shape=tensor.dense_shape)


def _dense_allreduce(tensor, op, prescale_factor, postscale_factor, process_set, name, compression):
    if _is_integer(tensor) and (op == Average or prescale_factor != 1.0 or postscale_factor != 1.0):
        sent = _int_scaled(tensor, prescale_factor) if prescale_factor != 1.0 else tensor
        summed = _allreduce(sent, name=name, op=Sum if op == Average else op, process_set=process_set)
        if op == Average:
            summed = tf.truncatediv(summed, tf.cast(process_set.size(), summed.dtype))
        return _int_scaled(summed, postscale_factor) if postscale_factor != 1.0 else summed
    compressed, ctx = compression.compress(tensor)
    reduced = _allreduce(compressed, name=name, op=op, prescale_factor=prescale_factor,
                         postscale_factor=postscale_factor, process_set=process_set)
    return compression.decompress(reduced, ctx)


def allreduce(tensor, average=None, device_dense="", device_sparse="", compression=Compression.none, op=None,
              prescale_factor=1.0, postscale_factor=1.0, name=None, process_set=global_process_set,
              ignore_name_scope=False):
    """Every rank's tensor reduced (op: Average by default, Sum, Adasum, Min, Max, Product). A tf.IndexedSlices is
    allgathered instead (values and indices), which represents the same sum. The devices are Horovod's arguments;
    hvd's kernels run on the CPU."""
    op = _reduce_op(op, average, "allreduce")
    if isinstance(tensor, tf.IndexedSlices):
        return _sparse_allreduce(tensor, op, prescale_factor, postscale_factor, process_set, name)
    return _dense_allreduce(tf.convert_to_tensor(tensor), op, prescale_factor, postscale_factor, process_set, name,
                            compression)


def grouped_allreduce(tensors, average=None, device_dense="", device_sparse="", compression=Compression.none,
                      op=None, prescale_factor=1.0, postscale_factor=1.0, process_set=global_process_set,
                      ignore_name_scope=False, name=None):
    """allreduce of every tensor, negotiated and fused as one unit; IndexedSlices and integer tensors that need
    Horovod's integer rules go one by one."""
    if not tensors:
        return tensors
    op = _reduce_op(op, average, "grouped_allreduce")
    out = [None] * len(tensors)
    grouped = []
    for i, t in enumerate(tensors):
        if isinstance(t, tf.IndexedSlices):
            out[i] = _sparse_allreduce(t, op, prescale_factor, postscale_factor, process_set,
                                       None if name is None else f"{name}.{i}")
        elif _is_integer(t) and (op == Average or prescale_factor != 1.0 or postscale_factor != 1.0):
            out[i] = _dense_allreduce(t, op, prescale_factor, postscale_factor, process_set,
                                      None if name is None else f"{name}.{i}", compression)
        else:
            grouped.append(i)
    # One group per dtype: a grouped op holds tensors of one type.
    by_dtype = {}
    for i in grouped:
        by_dtype.setdefault(tf.convert_to_tensor(tensors[i]).dtype, []).append(i)
    for n, (dtype, indices) in enumerate(by_dtype.items()):
        pairs = [compression.compress(tf.convert_to_tensor(tensors[i])) for i in indices]
        group_name = None if name is None else (name if len(by_dtype) == 1 else f"{name}.{n}")
        reduced = _grouped_allreduce([p[0] for p in pairs], name=group_name, op=op, prescale_factor=prescale_factor,
                                     postscale_factor=postscale_factor, process_set=process_set)
        for i, r, (_, ctx) in zip(indices, reduced, pairs):
            out[i] = compression.decompress(r, ctx)
    return out


def reducescatter(tensor, device_dense="", compression=Compression.none, op=Average, name=None,
                  process_set=global_process_set, ignore_name_scope=False, prescale_factor=1.0, postscale_factor=1.0):
    """Every rank's tensor reduced (Sum or Average), each rank keeping its share of dimension 0 (the first ranks a
    row more when it does not divide)."""
    if op not in (Sum, Average):
        raise ValueError(f"hvd.tensorflow.reducescatter: op={op!r} is not supported; use hvd.Sum or hvd.Average")
    compressed, ctx = compression.compress(tf.convert_to_tensor(tensor))
    reduced = _reducescatter(compressed, name=name, op=op, process_set=process_set, prescale_factor=prescale_factor,
                             postscale_factor=postscale_factor)
    return compression.decompress(reduced, ctx)


def grouped_reducescatter(tensors, device_dense="", compression=Compression.none, op=Average, name=None,
                          process_set=global_process_set, ignore_name_scope=False, prescale_factor=1.0,
                          postscale_factor=1.0):
    """reducescatter of every tensor, negotiated together."""
    if not tensors:
        return tensors
    if op not in (Sum, Average):
        raise ValueError(f"hvd.tensorflow.grouped_reducescatter: op={op!r} is not supported; use hvd.Sum or "
                         "hvd.Average")
    pairs = [compression.compress(tf.convert_to_tensor(t)) for t in tensors]
    reduced = _grouped_reducescatter([p[0] for p in pairs], name=name, op=op, process_set=process_set,
                                     prescale_factor=prescale_factor, postscale_factor=postscale_factor)
    return [compression.decompress(r, ctx) for r, (_, ctx) in zip(reduced, pairs)]
