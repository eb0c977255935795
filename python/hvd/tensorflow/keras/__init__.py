"""Horovod's Keras API on hvd (horovod.tensorflow.keras; horovod.keras is the same module here): DistributedOptimizer,
the callbacks, load_model, and the basics and ops of hvd.tensorflow. It serves the Keras that tf.keras is: Keras 2
(tf_keras) under TF_USE_LEGACY_KERAS=1, else Keras 3 (docs/tensorflow.md has the table)."""

import tensorflow as tf

from hvd.tensorflow import (Adasum, Average, Compression, Max, Min, Product, ProcessSet, Sum,  # noqa: F401
                            add_process_set, allgather_object, barrier, broadcast_object, ccl_built, cross_rank,
                            cross_size, cuda_built, ddl_built, global_process_set, gloo_built, gloo_enabled, init,
                            is_homogeneous, is_initialized, join, local_rank, local_size, mpi_built, mpi_enabled,
                            mpi_threads_supported, nccl_built, rank, remove_process_set, rocm_built, shutdown, size,
                            start_timeline, stop_timeline)
from hvd.tensorflow import allgather as _allgather
from hvd.tensorflow import allreduce as _allreduce
from hvd.tensorflow import broadcast as _broadcast
from hvd.tensorflow import broadcast_global_variables as _tf_broadcast_global_variables
from hvd.tensorflow import reducescatter as _reducescatter
from hvd.tensorflow.keras import callbacks  # noqa: F401
from hvd.tensorflow.keras import elastic  # noqa: F401
from hvd.tensorflow.keras.optimizer import DistributedOptimizer, PartialDistributedOptimizer  # noqa: F401


def broadcast_global_variables(root_rank):
    """Graph mode only, as in Horovod with TensorFlow 2: the op broadcasting every global variable."""
    return _tf_broadcast_global_variables(root_rank)


def allreduce(value, name=None, average=None, prescale_factor=1.0, postscale_factor=1.0, op=None,
              compression=Compression.none):
    """`value` (a tensor, a variable or anything tf.constant takes) reduced across ranks (Average by default)."""
    return _allreduce(tf.convert_to_tensor(value), name=name, average=average, prescale_factor=prescale_factor,
                      postscale_factor=postscale_factor, op=op, compression=compression)


def allgather(value, name=None):
    """Every rank's `value` concatenated along dimension 0."""
    return _allgather(tf.convert_to_tensor(value), name=name)


def broadcast(value, root_rank, name=None):
    """root_rank's `value` on every rank."""
    return _broadcast(tf.convert_to_tensor(value), root_rank, name=name)


def reducescatter(value, name=None, op=Average):
    """`value` reduced across ranks, each keeping its share of dimension 0."""
    return _reducescatter(tf.convert_to_tensor(value), name=name, op=op)


def load_model(filepath, custom_optimizers=None, custom_objects=None, compression=Compression.none):
    """Loads a saved Keras model and makes its optimizer a DistributedOptimizer of the same class, config and
    state (its variables copied over once built), so training resumes distributed."""
    objects = dict(custom_objects or {})
    for cls in custom_optimizers or []:
        objects[cls.__name__] = cls
    model = tf.keras.models.load_model(filepath, custom_objects=objects or None)
    optimizer = getattr(model, "optimizer", None)
    if optimizer is None:
        return model
    distributed = DistributedOptimizer(optimizer, compression=compression)
    old_vars = callbacks._optimizer_variables(optimizer)
    if old_vars and hasattr(distributed, "build"):
        distributed.build(model.trainable_variables)
        for new, old in zip(callbacks._optimizer_variables(distributed), old_vars):
            new.assign(old)
    model.optimizer = distributed
    return model
