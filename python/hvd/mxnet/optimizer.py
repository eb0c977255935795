"""horovod.mxnet's optimizer wrappers: DistributedOptimizer (an mx.optimizer.Optimizer whose update() first
sums the gradient over the ranks) and DistributedTrainer (a Gluon Trainer whose allreduce step is hvd's).

Both sum rather than average, the 1/size() folded into the optimizer's rescale_grad, so a gradient_predivide_factor
f divides each rank's gradient by f before the sum (prescale 1/f) and multiplies by f/size() after (in rescale_grad).
"""

import warnings

import mxnet as mx

from hvd.common.process_sets import global_process_set
from hvd.mxnet.compression import Compression
from hvd.mxnet.mpi_ops import Sum, allreduce_, grouped_allreduce_, raise_pending_error


def _groups(items, num_groups):
    """`items` in num_groups contiguous groups of near-equal length (one per item when num_groups is 0)."""
    if num_groups <= 0:
        return [[item] for item in items]
    per, extra = divmod(len(items), num_groups)
    out, start = [], 0
    for g in range(num_groups):
        end = start + per + (1 if g < extra else 0)
        if end > start:
            out.append(items[start:end])
        start = end
    return out


def _sum_grads(named_grads, prescale, num_groups, process_set):
    """Sums each (name, priority, grad) over the set in place; grouped ops when num_groups > 0."""
    for group in _groups(named_grads, num_groups):
        if len(group) == 1 and num_groups <= 0:
            name, priority, grad = group[0]
            allreduce_(grad, name=name, priority=priority, prescale_factor=prescale, process_set=process_set, op=Sum)
        else:
            grouped_allreduce_([g for _, _, g in group], name=group[0][0], priority=group[0][1],
                               prescale_factor=prescale, process_set=process_set, op=Sum)


class DistributedOptimizer(mx.optimizer.Optimizer):
    """Wraps an optimizer: update() sums the gradients over the ranks, then lets `optimizer` update."""

    def __init__(self, optimizer, gradient_predivide_factor=1.0, num_groups=0, process_set=global_process_set):
        self._optimizer = optimizer
        self._process_set = process_set
        self._gradient_predivide_factor = gradient_predivide_factor
        self._num_groups = num_groups
        self._optimizer.rescale_grad *= gradient_predivide_factor / process_set.size()

    def __getattr__(self, item):
        return getattr(self._optimizer, item)

    def create_state_multi_precision(self, index, weight):
        return self._optimizer.create_state_multi_precision(index, weight)

    def create_state(self, index, weight):
        return self._optimizer.create_state(index, weight)

    def _do_allreduce(self, index, grad):
        if self._process_set.size() == 1:
            return
        indices = list(index) if isinstance(index, (tuple, list)) else [index]
        grads = list(grad) if isinstance(grad, (tuple, list)) else [grad]
        named = [(str(i), -n, g) for n, (i, g) in enumerate(zip(indices, grads))]
        _sum_grads(named, 1.0 / self._gradient_predivide_factor, self._num_groups, self._process_set)

    def update(self, index, weight, grad, state):
        self._do_allreduce(index, grad)
        self._optimizer.update(index, weight, grad, state)

    def update_multi_precision(self, index, weight, grad, state):
        self._do_allreduce(index, grad)
        self._optimizer.update_multi_precision(index, weight, grad, state)

    def set_learning_rate(self, lr):
        self._optimizer.set_learning_rate(lr)

    def set_lr_mult(self, args_lr_mult):
        self._optimizer.set_lr_mult(args_lr_mult)

    def set_wd_mult(self, args_wd_mult):
        self._optimizer.set_wd_mult(args_wd_mult)


class DistributedTrainer(mx.gluon.Trainer):
    """A Gluon Trainer that sums gradients over the ranks with hvd (no kvstore). Call broadcast_parameters() on the
    net's parameters first, so every rank starts from the same weights."""

    def __init__(self, params, optimizer, optimizer_params=None, compression=Compression.none,
                 gradient_predivide_factor=1.0, prefix=None, num_groups=0, process_set=global_process_set):
        if isinstance(optimizer, DistributedOptimizer):
            optimizer = optimizer._optimizer
            warnings.warn("DistributedTrainer does not take a DistributedOptimizer; its inner optimizer is used")
        super().__init__(params, optimizer, optimizer_params=optimizer_params, kvstore=None)
        # Trainer divides by the batch size in step(); the sum over the ranks is made an average here.
        self._scale *= gradient_predivide_factor / process_set.size()
        self._gradient_predivide_factor = gradient_predivide_factor
        self._compression = compression
        self._prefix = prefix or ""
        self._num_groups = num_groups
        self._process_set = process_set

    def _allreduce_grads(self):
        if self._process_set.size() == 1:
            return
        raise_pending_error()
        named, restore = [], []
        for i, param in enumerate(self._params):
            if param.grad_req == "null":
                continue
            grad = param.list_grad()[0]
            wire, ctx = self._compression.compress(grad)
            named.append((self._prefix + str(i), -i, wire))
            if wire is not grad:
                restore.append((grad, wire, ctx))
        _sum_grads(named, 1.0 / self._gradient_predivide_factor, self._num_groups, self._process_set)
        for grad, wire, ctx in restore:
            grad[:] = self._compression.decompress(wire, ctx)
