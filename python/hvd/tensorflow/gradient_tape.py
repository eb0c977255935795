"""DistributedGradientTape and PartialDistributedGradientTape, as horovod.tensorflow's: a tf.GradientTape whose
gradient() returns the gradients reduced across ranks; sources registered as local (a PartialDistributedGradientTape's
local layers) keep their own gradient, divided by the set's size when scale_local_gradients."""

import tensorflow as tf

from hvd.common.basics import Average
from hvd.common.process_sets import global_process_set
from hvd.tensorflow.compression import Compression
from hvd.tensorflow.gradient_reduction import GradientReducer, LocalVariables, check_options, local_layer_variables


class _DistributedGradientTape(tf.GradientTape):
    def _hvd_setup(self, reducer, process_set, scale_local_gradients):
        self._hvd_reducer = reducer
        self._hvd_local = LocalVariables(process_set, scale_local_gradients)

    def register_local_source(self, source):
        """Keeps `source`'s gradient local: no reduction across ranks."""
        self._hvd_local.add(source)

    def gradient(self, target, sources, output_gradients=None, use_generic_names=False, **kwargs):
        flat = tf.nest.flatten(sources)
        grads = super().gradient(target, flat, output_gradients, **kwargs)
        out = self._hvd_local.reduce(self._hvd_reducer, list(grads), flat)
        return tf.nest.pack_sequence_as(sources, out)


def DistributedGradientTape(gradtape, device_dense="", device_sparse="", compression=Compression.none,
                            sparse_as_dense=False, op=Average, gradient_predivide_factor=1.0, num_groups=0,
                            groups=None, process_set=global_process_set, scale_local_gradients=True):
    """Wraps `gradtape` (already recorded): its gradient() reduces the gradients across ranks (Average by default)."""
    groups = check_options(op, gradient_predivide_factor, groups, num_groups)
    # The same tape, its class a subclass of the tape's own with the reducing gradient(), as Horovod returns it.
    cls = type(gradtape.__class__.__name__, (_DistributedGradientTape, gradtape.__class__), {})
    tape = gradtape
    tape.__class__ = cls
    tape._hvd_setup(GradientReducer("DistributedGradientTape", compression, sparse_as_dense, op,
                                    gradient_predivide_factor, groups, process_set), process_set, scale_local_gradients)
    return tape


def PartialDistributedGradientTape(gradtape, device_dense="", device_sparse="", compression=Compression.none,
                                   sparse_as_dense=False, op=Average, gradient_predivide_factor=1.0, num_groups=0,
                                   groups=None, process_set=global_process_set, local_layers=None,
                                   scale_local_gradients=True):
    """A DistributedGradientTape whose `local_layers` (Keras layers) keep their gradients local."""
    local_vars = local_layer_variables(local_layers)
    tape = DistributedGradientTape(gradtape, device_dense, device_sparse, compression, sparse_as_dense, op,
                                   gradient_predivide_factor, num_groups, groups, process_set, scale_local_gradients)
    for var in local_vars:
        tape.register_local_source(var)
    return tape
