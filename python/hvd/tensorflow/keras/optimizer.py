"""hvd.tensorflow.keras.DistributedOptimizer: a Keras optimizer whose gradients are reduced across ranks before it
applies them, for Keras 2 (tf_keras: apply_gradients) and Keras 3 (keras: apply, which apply_gradients calls). It
is an instance of a subclass of the wrapped optimizer's class, made from its config, as Horovod's is.
backward_passes_per_step > 1 is not there yet (docs/tensorflow.md): Keras 3's own gradient_accumulation_steps
accumulates before apply(), so the reduction then runs once per accumulated step."""


from hvd.common.basics import Average
from hvd.common.process_sets import global_process_set
from hvd.tensorflow.compression import Compression
from hvd.tensorflow.gradient_reduction import GradientReducer, LocalVariables, check_options, local_layer_variables


def _is_keras3(optimizer):
    return not type(optimizer).__module__.startswith("tf_keras") and hasattr(optimizer, "apply") and hasattr(
        optimizer, "build")


class _DistributedMixin:
    def _hvd_setup(self, reducer, process_set, scale_local_gradients):
        self._hvd_reducer = reducer
        self._hvd_local = LocalVariables(process_set, scale_local_gradients)

    def register_local_var(self, var):
        """Keeps `var`'s gradient local: no reduction across ranks."""
        self._hvd_local.add(var)

    def _hvd_reduce(self, grads, variables):
        return self._hvd_local.reduce(self._hvd_reducer, grads, variables)


class _Keras2Optimizer(_DistributedMixin):
    def apply_gradients(self, grads_and_vars, *args, **kwargs):
        pairs = list(grads_and_vars)
        grads = self._hvd_reduce([g for g, _ in pairs], [v for _, v in pairs])
        return super().apply_gradients(list(zip(grads, [v for _, v in pairs])), *args, **kwargs)


class _Keras3Optimizer(_DistributedMixin):
    def apply(self, grads, trainable_variables=None):
        variables = list(trainable_variables) if trainable_variables is not None else list(self._trainable_variables)
        return super().apply(self._hvd_reduce(list(grads), variables), trainable_variables)


def DistributedOptimizer(optimizer, name=None, device_dense="", device_sparse="", compression=Compression.none,
                         sparse_as_dense=False, gradient_predivide_factor=1.0, op=Average, backward_passes_per_step=1,
                         average_aggregated_gradients=False, num_groups=0, groups=None, process_set=global_process_set,
                         scale_local_gradients=True):
    """`optimizer`'s class and config, its gradients reduced across ranks (Average by default) before they apply."""
    groups = check_options(op, gradient_predivide_factor, groups, num_groups)
    if backward_passes_per_step != 1:
        raise NotImplementedError("hvd.tensorflow.keras.DistributedOptimizer: backward_passes_per_step > 1 is not "
                                  "supported yet; use Keras 3's gradient_accumulation_steps or "
                                  "hvd.tensorflow.DistributedOptimizer with a tf.compat.v1 optimizer")
    mixin = _Keras3Optimizer if _is_keras3(optimizer) else _Keras2Optimizer
    base = optimizer.__class__
    cls = type(base.__name__, (mixin, base), {})
    distributed = cls.from_config(optimizer.get_config())
    reducer = GradientReducer(name or f"Distributed{base.__name__}", compression, sparse_as_dense, op,
                              gradient_predivide_factor, groups, process_set)
    distributed._hvd_setup(reducer, process_set, scale_local_gradients)
    return distributed


def PartialDistributedOptimizer(optimizer, name=None, device_dense="", device_sparse="", compression=Compression.none,
                                sparse_as_dense=False, gradient_predivide_factor=1.0, op=Average,
                                backward_passes_per_step=1, average_aggregated_gradients=False, groups=None,
                                process_set=global_process_set, local_layers=None, scale_local_gradients=True):
    """A DistributedOptimizer whose `local_layers` keep their gradients local."""
    local_vars = local_layer_variables(local_layers)
    distributed = DistributedOptimizer(optimizer, name, device_dense, device_sparse, compression, sparse_as_dense,
                                       gradient_predivide_factor, op, backward_passes_per_step,
                                       average_aggregated_gradients, 0, groups, process_set, scale_local_gradients)
    for var in local_vars:
        distributed.register_local_var(var)
    return distributed


__all__ = ["DistributedOptimizer", "PartialDistributedOptimizer"]
