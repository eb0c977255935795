"""What training keeps across a reset, as horovod.torch.elastic's states.

State is the protocol run() drives: commit() = save() then the hosts-updated check; restore() puts the last save
back; sync() makes every rank hold rank 0's values; reset callbacks run after each reset, before sync().
ObjectState keeps plain attributes (pickled, broadcast from rank 0). TorchState adds a model, an optimizer and
ElasticSamplers: their snapshots are tensor copies in memory on the tensors' own devices, reused from one commit to
the next (no allocation once shapes are known); sync broadcasts rank 0's tensors in place.
"""

import copy

import torch

from hvd.common.elastic import ObjectState, State  # noqa: F401  (horovod.torch.elastic.state has both)
from hvd.torch.basics import rank
from hvd.torch.elastic.sampler import ElasticSampler
from hvd.torch.functions import broadcast_object, broadcast_optimizer_state, broadcast_parameters


def _snapshot(value, previous):
    """A deep copy of `value` (nested dicts, lists, tensors) that writes tensors into `previous`'s where their
    shape, dtype and device match, so a commit allocates only the first time."""
    if torch.is_tensor(value):
        value = value.detach()
        if (torch.is_tensor(previous) and previous.shape == value.shape and previous.dtype == value.dtype
                and previous.device == value.device):
            return previous.copy_(value)
        return value.clone()
    if isinstance(value, dict):
        previous = previous if isinstance(previous, dict) else {}
        return {key: _snapshot(item, previous.get(key)) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        previous = previous if isinstance(previous, type(value)) and len(previous) == len(value) else [None] * len(value)
        return type(value)(_snapshot(item, old) for item, old in zip(value, previous))
    return copy.deepcopy(value)


class _StateDictHandler:
    """Keeps a snapshot of value.state_dict(): save() takes it, restore() loads it back; load_state_dict copies into
    the value in place, so the snapshot survives for the next restore. Subclasses say how to sync()."""

    def __init__(self, value):
        self.value = value
        self.save()

    def save(self):
        self._saved = _snapshot(self.value.state_dict(), getattr(self, "_saved", None))

    def restore(self):
        self.value.load_state_dict(self._saved)


class _ModelHandler(_StateDictHandler):
    def sync(self):
        broadcast_parameters(self.value.state_dict(), root_rank=0, prefix="elastic.model.")


class _OptimizerHandler(_StateDictHandler):
    def sync(self):
        broadcast_optimizer_state(self.value, root_rank=0)


class _SamplerHandler(_StateDictHandler):
    def save(self):
        self._saved = copy.deepcopy(self.value.state_dict())

    def sync(self):
        # Every rank takes rank 0's progress through the epoch, then re-shards what is left for the new size.
        self.value.load_state_dict(broadcast_object(self.value.state_dict(), name="elastic.sampler"))


def _handler_for(value):
    if isinstance(value, torch.nn.Module):
        return _ModelHandler(value)
    if isinstance(value, torch.optim.Optimizer):
        return _OptimizerHandler(value)
    if isinstance(value, ElasticSampler):
        return _SamplerHandler(value)
    return None


class TorchState(ObjectState):
    """The state of a PyTorch training loop: TorchState(model, optimizer, epoch=0, batch=0, ...). Keyword values
    that are modules, optimizers or ElasticSamplers are kept as tensors (or the sampler's progress); the others as
    plain attributes. state.model, state.optimizer and every keyword are attributes; assigning one replaces what is
    kept."""

    def __init__(self, model=None, optimizer=None, **kwargs):
        kwargs.update(model=model, optimizer=optimizer)
        handlers, plain = {}, {}
        for name, value in kwargs.items():
            handler = _handler_for(value) if value is not None else None
            if handler is not None:
                handlers[name] = handler
            elif name not in ("model", "optimizer"):
                plain[name] = value
        object.__setattr__(self, "_handlers", handlers)
        for name, handler in handlers.items():
            object.__setattr__(self, name, handler.value)
        super().__init__(bcast_object=broadcast_object, get_rank=rank, **plain)

    def __setattr__(self, name, value):
        handlers = self.__dict__.get("_handlers", {})
        if name in handlers:
            handlers[name].value = value
            handlers[name].save()
        object.__setattr__(self, name, value)

    def _each_then_plain(self, step):
        """Runs `step` ("save", "restore" or "sync") on every handler, then on the plain attributes."""
        for handler in self._handlers.values():
            getattr(handler, step)()
        getattr(super(), step)()

    def save(self):
        self._each_then_plain("save")

    def restore(self):
        self._each_then_plain("restore")

    def sync(self):
        self._each_then_plain("sync")

    def reset(self):
        for handler in self._handlers.values():
            if isinstance(handler.value, ElasticSampler):
                handler.value.reset()
        super().reset()
