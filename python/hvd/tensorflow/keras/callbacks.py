"""Horovod's Keras callbacks on hvd, for Keras 2 (tf_keras) and Keras 3: the start-up broadcast, metrics averaged
over ranks, the learning-rate warm-up and schedule, and the best-model checkpoint. Each is a subclass of the Keras
callbacks base of the Keras in use (tf.keras)."""

import numpy as np
import tensorflow as tf

from hvd.common import basics
from hvd.common.process_sets import global_process_set
from hvd.tensorflow.functions import broadcast_variables
from hvd.tensorflow.reductions import allreduce

_keras = tf.keras


def _optimizer_variables(optimizer):
    variables = getattr(optimizer, "variables", [])
    return list(variables() if callable(variables) else variables)


class BroadcastGlobalVariablesCallback(_keras.callbacks.Callback):
    """After the first batch (when the optimizer's slots exist), every rank takes root_rank's model and optimizer
    variables, so training continues from one state whatever each rank initialized or restored."""

    def __init__(self, root_rank, device=""):
        super().__init__()
        self.root_rank = root_rank
        self.device = device
        self.broadcast_done = False

    def on_batch_end(self, batch, logs=None):
        if self.broadcast_done:
            return
        broadcast_variables(self.model.variables, root_rank=self.root_rank)
        optimizer = getattr(self.model, "optimizer", None)
        if optimizer is not None:
            broadcast_variables(_optimizer_variables(optimizer), root_rank=self.root_rank)
        self.broadcast_done = True


class MetricAverageCallback(_keras.callbacks.Callback):
    """At each epoch's end, every metric in the logs becomes its average over the ranks (of the set), so rank 0
    reports and checkpoints on the job's metrics, not its own shard's."""

    def __init__(self, device="", process_set=global_process_set):
        super().__init__()
        self.device = device
        self.process_set = process_set

    def on_epoch_end(self, epoch, logs=None):
        if not logs:
            return
        # Sorted: every rank reduces the same metrics in the same order.
        for name in sorted(logs):
            value = logs[name]
            if isinstance(value, (int, float, np.floating, np.integer)) or tf.is_tensor(value):
                averaged = allreduce(tf.constant(float(value), dtype=tf.float64), name=f"metric.{name}",
                                     process_set=self.process_set)
                logs[name] = float(averaged.numpy())


def _get_lr(optimizer):
    return float(np.asarray(optimizer.learning_rate))


class LearningRateScheduleCallback(_keras.callbacks.Callback):
    """The learning rate is initial_lr * multiplier from start_epoch to end_epoch; multiplier is a number or a
    function of the epoch (fractional, per batch, unless staircase). momentum_correction scales momentum by the
    change of rate for the batch it changes on, as Horovod does."""

    def __init__(self, initial_lr, multiplier, start_epoch=0, end_epoch=None, staircase=True,
                 momentum_correction=True, steps_per_epoch=None):
        super().__init__()
        self.initial_lr = initial_lr
        self.start_epoch = start_epoch
        self.end_epoch = end_epoch
        self.staircase = staircase
        self.momentum_correction = momentum_correction
        self.steps_per_epoch = steps_per_epoch
        self.current_epoch = None
        self.restore_momentum = None
        self.multiplier = multiplier if callable(multiplier) else (lambda epoch: multiplier)

    def _in_range(self, epoch):
        return epoch >= self.start_epoch and (self.end_epoch is None or epoch < self.end_epoch)

    def _adjust(self, epoch):
        optimizer = self.model.optimizer
        old_lr = _get_lr(optimizer)
        new_lr = self.initial_lr * self.multiplier(epoch)
        _set_attr(optimizer, "learning_rate", new_lr)
        momentum = getattr(optimizer, "momentum", None)
        if self.momentum_correction and momentum is not None and old_lr > 0 and not callable(momentum):
            self.restore_momentum = float(np.asarray(momentum))
            _set_attr(optimizer, "momentum", self.restore_momentum * new_lr / old_lr)

    def _restore(self):
        if self.restore_momentum is not None:
            _set_attr(self.model.optimizer, "momentum", self.restore_momentum)
            self.restore_momentum = None

    def on_train_begin(self, logs=None):
        if self.initial_lr is None:
            self.initial_lr = _get_lr(self.model.optimizer)
        if not self.staircase and not self.steps_per_epoch:
            self.steps_per_epoch = self.params.get("steps") if self.params else None

    def on_epoch_begin(self, epoch, logs=None):
        self.current_epoch = epoch

    def on_batch_begin(self, batch, logs=None):
        if not self._in_range(self.current_epoch):
            return
        if self.staircase:
            if batch == 0:
                self._adjust(self.current_epoch)
        elif self.steps_per_epoch:
            self._adjust(self.current_epoch + float(batch) / self.steps_per_epoch)

    def on_batch_end(self, batch, logs=None):
        self._restore()

    def on_epoch_end(self, epoch, logs=None):
        if logs is not None:
            logs["lr"] = _get_lr(self.model.optimizer)


def _set_attr(optimizer, name, value):
    current = getattr(optimizer, name)
    if hasattr(current, "assign"):
        current.assign(value)
    else:
        setattr(optimizer, name, value)


class LearningRateWarmupCallback(LearningRateScheduleCallback):
    """Horovod's warm-up ("Accurate, Large Minibatch SGD"): over warmup_epochs the rate climbs per batch from
    initial_lr / size() to initial_lr, where initial_lr is already scaled by size()."""

    def __init__(self, initial_lr, warmup_epochs=5, momentum_correction=True, steps_per_epoch=None, verbose=0):
        def multiplier(epoch):
            # epoch is fractional: the rate climbs linearly from 1/size to 1.
            epoch += 1.0 / self.steps_per_epoch
            return 1.0 / basics.size() * (epoch * (basics.size() - 1) / warmup_epochs + 1)

        super().__init__(initial_lr, multiplier, start_epoch=0, end_epoch=warmup_epochs, staircase=False,
                         momentum_correction=momentum_correction, steps_per_epoch=steps_per_epoch)
        self.verbose = verbose

    def on_epoch_end(self, epoch, logs=None):
        super().on_epoch_end(epoch, logs)
        if epoch == self.end_epoch - 1 and self.verbose > 0:
            print(f"\nEpoch {epoch + 1}: finished gradual learning rate warmup to {_get_lr(self.model.optimizer)}.")


class BestModelCheckpoint(_keras.callbacks.ModelCheckpoint):
    """A ModelCheckpoint that keeps only the best model by `monitor` (Horovod's, used by elastic Keras jobs)."""

    def __init__(self, filepath=None, monitor="val_loss", verbose=0, mode="auto", save_freq="epoch"):
        super().__init__(filepath=filepath, monitor=monitor, verbose=verbose, save_best_only=True,
                         save_weights_only=False, mode=mode, save_freq=save_freq)
