"""tf.compat.v1's start-up broadcast, as horovod.tensorflow's: broadcast_global_variables and the
BroadcastGlobalVariablesHook a MonitoredTrainingSession runs once its session exists."""

import tensorflow as tf

from hvd.tensorflow.functions import broadcast_variables


def broadcast_global_variables(root_rank):
    """The op that gives every global variable root_rank's value (graph mode only, as in Horovod)."""
    if tf.executing_eagerly():
        raise RuntimeError("hvd.broadcast_global_variables() does not support eager execution. Please use "
                           "`hvd.broadcast_variables(<model/optimizer variables>)` instead.")
    return broadcast_variables(tf.compat.v1.global_variables(), root_rank)


class BroadcastGlobalVariablesHook(tf.compat.v1.train.SessionRunHook):
    """Broadcasts every global variable from root_rank once the session is created (after initialization or a
    restore from a checkpoint), so every rank starts from the same state."""

    def __init__(self, root_rank, device=""):
        super().__init__()
        self.root_rank = root_rank
        self.bcast_op = None
        self.device = device

    def begin(self):
        if self.bcast_op is None or self.bcast_op.graph != tf.compat.v1.get_default_graph():
            self.bcast_op = broadcast_global_variables(self.root_rank)

    def after_create_session(self, session, coord):
        session.run(self.bcast_op)
