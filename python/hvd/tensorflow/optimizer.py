"""DistributedOptimizer for tf.compat.v1 optimizers, as horovod.tensorflow's: compute_gradients() returns the
gradients reduced across ranks, apply_gradients() is the wrapped optimizer's. A Keras optimizer goes to
hvd.tensorflow.keras.DistributedOptimizer. backward_passes_per_step > 1 accumulates that many steps' gradients in
local variables and reduces and applies them on the last (graph mode, as Horovod)."""

import tensorflow as tf

from hvd.common.basics import Adasum, Average
from hvd.common.process_sets import global_process_set
from hvd.tensorflow.compression import Compression
from hvd.tensorflow.gradient_reduction import GradientReducer, LocalVariables, check_options

_LegacyOptimizer = tf.compat.v1.train.Optimizer


class _DistributedOptimizer(_LegacyOptimizer):
    """Wraps a tf.compat.v1 optimizer: gradients are reduced in compute_gradients()."""

    def __init__(self, optimizer, name, use_locking, reducer, backward_passes_per_step, average_aggregated_gradients,
                 process_set, scale_local_gradients):
        super().__init__(name=name or f"Distributed{type(optimizer).__name__}", use_locking=use_locking)
        self._optimizer = optimizer
        self._reducer = reducer
        self._passes = backward_passes_per_step
        self._average_aggregated = average_aggregated_gradients
        self._local = LocalVariables(process_set, scale_local_gradients)
        self._accumulators = None
        if backward_passes_per_step > 1 and tf.executing_eagerly():
            raise ValueError("backward_passes_per_step > 1 is not yet supported for _LegacyOptimizer with eager "
                             "execution.")

    def register_local_var(self, var):
        """Keeps `var`'s gradient local: no reduction across ranks."""
        self._local.add(var)

    def _reduce(self, grads, variables):
        return self._local.reduce(self._reducer, grads, variables)

    def compute_gradients(self, *args, **kwargs):
        pairs = self._optimizer.compute_gradients(*args, **kwargs)
        grads, variables = zip(*pairs) if pairs else ((), ())
        if self._passes > 1:
            return list(zip(grads, variables))  # reduced in apply_gradients, on the last pass
        return list(zip(self._reduce(list(grads), list(variables)), variables))

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        if self._passes == 1:
            return self._optimizer.apply_gradients(grads_and_vars, global_step=global_step, name=name)
        return self._accumulate_then_apply(list(grads_and_vars), global_step, name)

    def _accumulate_then_apply(self, grads_and_vars, global_step, name):
        pairs = [(g, v) for g, v in grads_and_vars if g is not None]
        if self._accumulators is None:
            with tf.compat.v1.variable_scope(self._name + "_aggregation", reuse=tf.compat.v1.AUTO_REUSE):
                self._counter = tf.compat.v1.get_variable("counter", shape=[], dtype=tf.int32, trainable=False,
                                                          initializer=tf.compat.v1.zeros_initializer())
                self._accumulators = [
                    tf.compat.v1.get_variable(f"acc_{i}", shape=v.shape, dtype=v.dtype.base_dtype, trainable=False,
                                              initializer=tf.compat.v1.zeros_initializer())
                    for i, (_, v) in enumerate(pairs)]
        adds = [acc.assign_add(tf.convert_to_tensor(g)) for acc, (g, _) in zip(self._accumulators, pairs)]
        with tf.control_dependencies(adds):
            count = self._counter.assign_add(1)

        def apply():
            grads = [acc.read_value() for acc in self._accumulators]
            if self._average_aggregated:
                grads = [g / self._passes for g in grads]
            reduced = self._reduce(grads, [v for _, v in pairs])
            applied = self._optimizer.apply_gradients(list(zip(reduced, [v for _, v in pairs])),
                                                      global_step=global_step, name=name)
            with tf.control_dependencies([applied]):
                resets = [acc.assign(tf.zeros_like(acc)) for acc in self._accumulators]
                resets.append(self._counter.assign(0))
            return tf.group(*resets)

        def skip():
            ops = [tf.no_op()]
            if global_step is not None:
                ops.append(tf.compat.v1.assign_add(global_step, 1))
            return tf.group(*ops)

        return tf.cond(tf.equal(count, self._passes), apply, skip)

    def get_slot(self, *args, **kwargs):
        return self._optimizer.get_slot(*args, **kwargs)

    def get_slot_names(self, *args, **kwargs):
        return self._optimizer.get_slot_names(*args, **kwargs)

    def variables(self, *args, **kwargs):
        return self._optimizer.variables(*args, **kwargs)


def DistributedOptimizer(optimizer, name=None, use_locking=False, device_dense="", device_sparse="",
                         compression=Compression.none, sparse_as_dense=False, backward_passes_per_step=1, op=Average,
                         gradient_predivide_factor=1.0, average_aggregated_gradients=False, num_groups=0, groups=None,
                         process_set=global_process_set, scale_local_gradients=True):
    """Wraps `optimizer` so that the gradients it applies are reduced across ranks (see the module)."""
    groups = check_options(op, gradient_predivide_factor, groups, num_groups)
    if op == Adasum and average_aggregated_gradients:
        raise ValueError("Adasum does not support average_aggregated_gradients == True")
    if isinstance(optimizer, _LegacyOptimizer):
        reducer = GradientReducer(name or f"Distributed{type(optimizer).__name__}", compression, sparse_as_dense, op,
                                  gradient_predivide_factor, groups, process_set)
        return _DistributedOptimizer(optimizer, name, use_locking, reducer, backward_passes_per_step,
                                     average_aggregated_gradients, process_set, scale_local_gradients)
    if hasattr(optimizer, "apply_gradients"):  # a Keras optimizer, Keras 2's or Keras 3's
        if op == Adasum:
            raise ValueError("op == Adasum is not supported yet with Keras")
        from hvd.tensorflow.keras import optimizer as keras_optimizer
        return keras_optimizer.DistributedOptimizer(
            optimizer, name=name, compression=compression, sparse_as_dense=sparse_as_dense,
            gradient_predivide_factor=gradient_predivide_factor, backward_passes_per_step=backward_passes_per_step,
            average_aggregated_gradients=average_aggregated_gradients, process_set=process_set,
            scale_local_gradients=scale_local_gradients)
    raise ValueError("Provided optimizer doesn't inherit from either legacy TensorFlow or Keras optimizer: "
                     f"{optimizer}")


