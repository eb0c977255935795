"""Broadcasting state, as horovod.tensorflow.functions: variables (root's values assigned everywhere) and Python
objects (hvd.common's, pickled through libhvd's bytes, the same for every framework)."""

import tensorflow as tf

from hvd.common import objects
from hvd.common.process_sets import global_process_set
from hvd.tensorflow.mpi_ops import broadcast


def broadcast_variables(variables, root_rank, process_set=global_process_set, inplace=False):
    """Assigns root_rank's value to every variable, on every rank of the set. Eagerly it runs at once; in a graph it
    returns the op that does it (run it once, after the variables are initialized)."""
    variables = list(variables)
    if not variables:
        return tf.no_op() if not tf.executing_eagerly() else None
    assigns = [var.assign(broadcast(var, root_rank, name=_variable_name(var), process_set=process_set))
               for var in variables]
    return None if tf.executing_eagerly() else tf.group(*assigns)


def _variable_name(var):
    # Named after the variable, so ranks match variables by name whatever the order TensorFlow runs them in.
    return "broadcast." + var.name.replace(":", "_")


def broadcast_object_fn(root_rank=0, name=None, process_set=global_process_set):
    """A function that broadcasts an object from root_rank (Horovod's broadcast_object_fn)."""
    def fn(obj):
        return objects.broadcast_object(obj, root_rank=root_rank, name=name, process_set=process_set)
    return fn


def broadcast_object(obj, root_rank=0, session=None, name=None, process_set=global_process_set):
    """root_rank's `obj` (pickled) on every rank of the set. `session` is Horovod's for graph mode; the bytes move
    through libhvd directly, so no session is needed and it is ignored."""
    return objects.broadcast_object(obj, root_rank=root_rank, name=name, process_set=process_set)


def allgather_object(obj, session=None, name=None, process_set=global_process_set):
    """Every rank's `obj` (pickled), in rank order of the set; `session` is ignored as in broadcast_object."""
    return objects.allgather_object(obj, name=name, process_set=process_set)
