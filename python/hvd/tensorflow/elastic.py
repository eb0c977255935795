"""Elastic training with TensorFlow, as horovod.tensorflow.elastic: the run loop is hvd.common's; the states keep
TensorFlow variables (a Keras model and its optimizer, or any list of variables) as in-memory copies, restored on
a reset and synced from rank 0 by broadcast."""

import tensorflow as tf

from hvd.common.elastic import ObjectState, State, run  # noqa: F401
from hvd.tensorflow.functions import broadcast_object, broadcast_variables


def _values(variables):
    return [v.numpy() if hasattr(v, "numpy") else tf.keras.backend.get_value(v) for v in variables]


class TensorFlowState(ObjectState):
    """Keeps `variables` (default: every global variable of a tf.compat.v1 graph, run through `session`) and the
    keyword attributes."""

    def __init__(self, variables=None, session=None, **kwargs):
        self.variables = variables if variables is not None else tf.compat.v1.global_variables()
        self.session = session
        self._saved = None
        super().__init__(bcast_object=broadcast_object, **kwargs)
        self._save_variables()

    def _save_variables(self):
        if self.session is not None:
            self._saved = self.session.run(self.variables)
        else:
            self._saved = _values(self.variables)

    def save(self):
        self._save_variables()
        super().save()

    def restore(self):
        for var, value in zip(self.variables, self._saved):
            if self.session is not None:
                var.load(value, self.session)
            else:
                var.assign(value)
        super().restore()

    def sync(self):
        if self.session is not None:
            self.session.run(broadcast_variables(self.variables, root_rank=0))
        else:
            broadcast_variables(self.variables, root_rank=0)
        self._save_variables()
        super().sync()


class TensorFlowKerasState(ObjectState):
    """Keeps a Keras model's weights and its optimizer's variables (the model's own optimizer unless given), and
    the keyword attributes (epoch, batch, ...)."""

    def __init__(self, model, optimizer=None, backend=None, **kwargs):
        self.model = model
        self.optimizer = optimizer if optimizer is not None else getattr(model, "optimizer", None)
        self._saved_model = None
        self._saved_optimizer = None
        super().__init__(bcast_object=broadcast_object, **kwargs)
        self._save_variables()

    def _optimizer_variables(self):
        if self.optimizer is None:
            return []
        variables = getattr(self.optimizer, "variables", [])
        return list(variables() if callable(variables) else variables)

    def _save_variables(self):
        self._saved_model = self.model.get_weights()
        self._saved_optimizer = _values(self._optimizer_variables())

    def save(self):
        self._save_variables()
        super().save()

    def restore(self):
        self.model.set_weights(self._saved_model)
        for var, value in zip(self._optimizer_variables(), self._saved_optimizer):
            var.assign(value)
        super().restore()

    def sync(self):
        broadcast_variables(self.model.variables, root_rank=0)
        opt_vars = self._optimizer_variables()
        if opt_vars:
            broadcast_variables(opt_vars, root_rank=0)
        self._save_variables()
        super().sync()


__all__ = ["run", "State", "ObjectState", "TensorFlowState", "TensorFlowKerasState"]
