"""Elastic Keras training, as horovod.tensorflow.keras.elastic: KerasState, and the callbacks that keep the state's
epoch and batch current and commit it every few batches."""

import tensorflow as tf

from hvd.common.elastic import run  # noqa: F401
from hvd.tensorflow.elastic import TensorFlowKerasState

KerasState = TensorFlowKerasState


class CommitStateCallback(tf.keras.callbacks.Callback):
    """Commits `state` every batches_per_commit batches (and at each epoch's end)."""

    def __init__(self, state, batches_per_commit=1):
        super().__init__()
        self.state = state
        self.batches_per_commit = batches_per_commit
        self.batches_remaining = batches_per_commit

    def on_batch_end(self, batch, logs=None):
        self.batches_remaining -= 1
        if self.batches_remaining == 0:
            self.state.commit()
            self.batches_remaining = self.batches_per_commit

    def on_epoch_end(self, epoch, logs=None):
        self.state.commit()
        self.batches_remaining = self.batches_per_commit


class UpdateBatchStateCallback(tf.keras.callbacks.Callback):
    """Keeps state.batch at the batch being trained; a resumed epoch starts at the batch after the last commit."""

    def __init__(self, state):
        super().__init__()
        self.state = state
        self.steps_per_epoch = None

    def on_epoch_begin(self, epoch, logs=None):
        if self.params.get("steps"):
            self.steps_per_epoch = self.params.get("steps")

    def on_batch_end(self, batch, logs=None):
        self.state.batch = batch

    def on_epoch_end(self, epoch, logs=None):
        self.state.batch = 0


class UpdateEpochStateCallback(tf.keras.callbacks.Callback):
    """Keeps state.epoch at the next epoch to train."""

    def __init__(self, state):
        super().__init__()
        self.state = state
        self.initial_epoch = self.state.epoch

    def on_epoch_end(self, epoch, logs=None):
        self.state.epoch = self.initial_epoch + epoch + 1


__all__ = ["run", "KerasState", "CommitStateCallback", "UpdateBatchStateCallback", "UpdateEpochStateCallback"]
