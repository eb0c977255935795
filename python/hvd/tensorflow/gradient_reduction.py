"""How hvd.tensorflow reduces a step's gradients, for DistributedGradientTape, DistributedOptimizer and Keras: one
function per configuration (compression, sparse_as_dense, op, predivide, groups, process set), cached. Eagerly it is
a tf.function, so the step's allreduces are in flight together and libhvd fuses them; in a graph it adds the ops
to the graph. Gradients that are None stay None; a rank outside the process set, or a set of one, keeps its own.
"""

import tensorflow as tf

from hvd.common.basics import Average
from hvd.common.process_sets import global_process_set
from hvd.tensorflow.compression import Compression
from hvd.tensorflow.reductions import allreduce, grouped_allreduce


def check_options(op, gradient_predivide_factor, groups, num_groups=0):
    """Horovod's checks of the wrappers' arguments; returns the groups to use (num_groups is the old name)."""
    if gradient_predivide_factor != 1.0 and op != Average:
        raise ValueError("gradient_predivide_factor not supported with op != Average")
    if num_groups:
        groups = num_groups if groups is None else groups
    if groups is not None and not (isinstance(groups, list) or groups > 0):
        raise ValueError("groups should be a non-negative integer or a list of list of tf.Variable.")
    return groups


def var_key(variable):
    """A hashable key for a variable: TensorFlow's ref(), or its identity for Keras 3's variables."""
    return variable.ref() if hasattr(variable, "ref") else id(variable)


def _split_evenly(items, parts):
    size, extra = divmod(len(items), parts)
    out, start = [], 0
    for i in range(parts):
        end = start + size + (1 if i < extra else 0)
        if end > start:
            out.append(items[start:end])
        start = end
    return out


class GradientReducer:
    """reduce(grads, variables) -> the reduced gradients, in order."""

    def __init__(self, name="DistributedGradients", compression=Compression.none, sparse_as_dense=False, op=Average,
                 gradient_predivide_factor=1.0, groups=None, process_set=global_process_set):
        self._name = name
        self._compression = compression
        self._sparse_as_dense = sparse_as_dense
        self._op = op
        # Horovod's split of an average around the sum: 1/f before, f after (libhvd divides by the size after).
        predivide = op == Average and gradient_predivide_factor != 1.0
        self._prescale = 1.0 / gradient_predivide_factor if predivide else 1.0
        self._postscale = gradient_predivide_factor if predivide else 1.0
        self._groups = groups
        self._process_set = process_set
        self._eager_fn = None

    def reduce(self, grads, variables=None):
        grads = list(grads)
        if not self._process_set.included() or self._process_set.size() == 1:
            return grads
        if self._sparse_as_dense:
            grads = [tf.convert_to_tensor(g) if isinstance(g, tf.IndexedSlices) else g for g in grads]
        if tf.executing_eagerly():
            if self._eager_fn is None:
                self._eager_fn = tf.function(self._reduce_all)
            present = [i for i, g in enumerate(grads) if g is not None]
            present_vars = [variables[i] for i in present] if variables is not None else None
            reduced = self._eager_fn([grads[i] for i in present], present_vars)
            out = [None] * len(grads)
            for i, r in zip(present, reduced):
                out[i] = r
            return out
        return self._reduce_all(grads, variables)

    def _one(self, grad):
        return allreduce(grad, compression=self._compression, op=self._op, prescale_factor=self._prescale,
                         postscale_factor=self._postscale, process_set=self._process_set)

    def _reduce_all(self, grads, variables):
        grads = list(grads)
        with tf.name_scope(self._name + "_Allreduce"):
            if self._groups is None:
                return [self._one(g) if g is not None else None for g in grads]
            present = [(i, g) for i, g in enumerate(grads) if g is not None]
            if isinstance(self._groups, list) and variables is not None:
                place = {var_key(v): n for n, group in enumerate(self._groups) for v in group}
                by_group = {}
                for i, g in present:
                    key = place.get(var_key(variables[i]), ("alone", i))
                    by_group.setdefault(key, []).append((i, g))
                parts = list(by_group.values())
            else:
                parts = _split_evenly(present, self._groups if isinstance(self._groups, int) else 1)
            out = list(grads)
            for part in parts:
                reduced = grouped_allreduce([g for _, g in part], compression=self._compression, op=self._op,
                                            prescale_factor=self._prescale, postscale_factor=self._postscale,
                                            process_set=self._process_set)
                for (i, _), r in zip(part, reduced):
                    out[i] = r
            return out


def _scale_local(grad, process_set):
    # Horovod's scaling of a local (unreduced) gradient: divided by the set's size, as the reduced ones averaged.
    n = process_set.size()
    if isinstance(grad, tf.IndexedSlices):
        return tf.IndexedSlices(grad.values / n, grad.indices, grad.dense_shape)
    return grad / n


def local_layer_variables(local_layers):
    """The trainable variables of `local_layers` (one Keras layer or several, Keras 2's or Keras 3's: what they share
    is trainable_weights); ValueError, as Horovod's, for anything else."""
    if local_layers is None:
        return []
    if hasattr(local_layers, "trainable_weights"):
        local_layers = [local_layers]
    elif not all(hasattr(layer, "trainable_weights") for layer in local_layers):
        raise ValueError("All local layers must be of tf.keras.layers.Layer type.")
    return [var for layer in local_layers for var in layer.trainable_weights]


class LocalVariables:
    """The variables a wrapper keeps local (register_local_source / register_local_var): their gradients are not
    reduced, and are divided by the set's size when scale_local_gradients, as Horovod does."""

    def __init__(self, process_set, scale_local_gradients):
        self._keys = set()
        self._process_set = process_set
        self._scale = scale_local_gradients

    def add(self, variable):
        self._keys.add(var_key(variable))

    def reduce(self, reducer, grads, variables):
        """`grads` for `variables`, those of shared variables reduced by `reducer`."""
        shared = [i for i, v in enumerate(variables) if var_key(v) not in self._keys]
        reduced = reducer.reduce([grads[i] for i in shared], [variables[i] for i in shared])
        out = list(grads)
        for i, r in zip(shared, reduced):
            out[i] = r
        if self._scale and self._keys:
            out = [_scale_local(g, self._process_set) if g is not None and var_key(v) in self._keys else g
                   for v, g in zip(variables, out)]
        return out
