"""DistributedOptimizer, as horovod.torch's: wraps a torch.optim optimizer so that step() uses gradients averaged
(or summed, or Adasum-combined) over all ranks.

The work is hvd_torch's C++ DistributedOptimizer: its hooks, run inside loss.backward() without the GIL, start
each gradient's allreduce as soon as autograd has produced it, overlapping communication with the rest of the
backward pass; synchronize() waits and writes the results into .grad. It wraps a C++ optimizer, so the Python
optimizer is handed to it through an adapter over the same parameter tensors whose step() calls back here (only
Adasum steps from C++: one parameter at a time, from its hook). As in Horovod, the returned object is an instance
of a subclass of the wrapped optimizer's class, sharing its param groups.
"""

import contextlib
import functools
import warnings
import weakref

import torch

from hvd.torch import _C
from hvd.torch.basics import Adasum, Average, HorovodInternalError, check_process_set, global_process_set
from hvd.torch.compression import Compression, FP16Compressor, NoneCompressor


def _step_subset(optimizer_ref, params):
    """Steps the wrapped optimizer on `params` only (called from C++ for Adasum's per-parameter steps)."""
    optimizer = optimizer_ref()
    if optimizer is None:
        return
    wanted = {id(p) for p in params}
    saved = [group["params"] for group in optimizer.param_groups]
    try:
        for group in optimizer.param_groups:
            group["params"] = [p for p in group["params"] if id(p) in wanted]
        super(optimizer.__class__, optimizer).step()
    finally:
        for group, group_params in zip(optimizer.param_groups, saved):
            group["params"] = group_params


class _DistributedOptimizer:
    """The methods of the subclass DistributedOptimizer() makes; `self` is also a torch.optim optimizer."""

    def __init__(self, params, named_parameters, compression, backward_passes_per_step, op,
                 gradient_predivide_factor, process_set_id=0, process_set=global_process_set):
        super(self.__class__, self).__init__(params)
        if named_parameters is None:
            named = [(f"allreduce.noname.{i}.{j}", p) for i, group in enumerate(self.param_groups)
                     for j, p in enumerate(group["params"])]
        else:
            named = list(named_parameters)
        if any(not isinstance(item, tuple) or len(item) != 2 for item in named):
            raise ValueError("hvd.torch.DistributedOptimizer: named_parameters must be (name, parameter) pairs, "
                             "as model.named_parameters() gives")
        if compression not in (Compression.none, Compression.fp16, NoneCompressor, FP16Compressor):
            raise ValueError(f"hvd.torch.DistributedOptimizer: compression {compression!r} is not supported; use "
                             "hvd.Compression.none or hvd.Compression.fp16")
        # Horovod's attribute: each parameter's allreduce name (scripts and Horovod's tests read it).
        self._parameter_names = {p: name for name, p in named}
        groups = [list(group["params"]) for group in self.param_groups]
        try:
            self._hvd = _C.DistributedOptimizer(groups, named, op, compression is Compression.fp16,
                                                float(gradient_predivide_factor), int(backward_passes_per_step),
                                                functools.partial(_step_subset, weakref.ref(self)), process_set_id)
        except HorovodInternalError as e:  # bad arguments: Horovod raises ValueError for these
            raise ValueError(str(e)) from None
        # Outside its process set it reduces nothing (Horovod's rule): step() is the local optimizer's, Adasum's too.
        self._hvd_adasum = op == Adasum and process_set.included()
        self._hvd_should_synchronize = True
        self._hvd_synchronized = False

    def synchronize(self):
        """Waits for every gradient's allreduce and writes the results into .grad."""
        self._hvd.synchronize()
        self._hvd_synchronized = True

    @contextlib.contextmanager
    def skip_synchronize(self):
        """step() inside this context does not synchronize (call synchronize() first, e.g. to clip gradients)."""
        self._hvd_should_synchronize = False
        try:
            yield
        finally:
            self._hvd_should_synchronize = True

    def step(self, closure=None):
        if self._hvd_adasum:
            # Each parameter took its local step in its hook; synchronize() applies the combined changes.
            loss = closure() if closure is not None else None
            self._hvd.synchronize()
            self._hvd_synchronized = False
            return loss
        if self._hvd_should_synchronize:
            if self._hvd_synchronized:
                # Horovod's warning, word for word: scripts and tests look for it.
                warnings.warn("optimizer.step() called without optimizer.skip_synchronize() context after "
                              "optimizer.synchronize(). This can cause training slowdown. You may want to consider "
                              "using optimizer.skip_synchronize() context if you use optimizer.synchronize() in "
                              "your code.")
            self._hvd.synchronize()
        self._hvd_synchronized = False
        return super(self.__class__, self).step(closure)

    def zero_grad(self, set_to_none=False):
        """Zeroes the gradients; raises while their allreduces are in flight (between backward() and step())."""
        self._hvd.zero_grad()
        if set_to_none:
            for group in self.param_groups:
                for p in group["params"]:
                    p.grad = None


def _check_groups(optimizer, num_groups, groups):
    """Horovod's rules for num_groups (deprecated) and groups (a positive count, or lists of parameters)."""
    if num_groups:
        warnings.warn("Parameter `num_groups` has been replaced by `groups` and will be removed in v0.23.0.",
                      DeprecationWarning, stacklevel=3)
        if groups is None:
            groups = num_groups
    if groups is None:
        return
    if isinstance(groups, bool) or not (isinstance(groups, list) or (isinstance(groups, int) and groups > 0)):
        raise ValueError(f"hvd.torch.DistributedOptimizer: groups={groups!r}; groups should be a non-negative "
                         "integer or a list of list of torch.Tensor.")
    if isinstance(groups, int):
        return
    params = {id(p) for group in optimizer.param_groups for p in group["params"]}
    seen = set()
    for group in groups:
        for p in group:
            if not isinstance(p, torch.Tensor):
                raise ValueError(f"hvd.torch.DistributedOptimizer: groups holds a {type(p).__name__}; groups must "
                                 "consist of torch.Tensor.")
            if id(p) in seen:
                raise ValueError("hvd.torch.DistributedOptimizer: a parameter of shape "
                                 f"{list(p.shape)} is in groups twice; a parameter can only appear once in groups.")
            if id(p) not in params:
                raise ValueError(f"hvd.torch.DistributedOptimizer: groups holds a tensor of shape {list(p.shape)} "
                                 "that the optimizer does not update; list the optimizer's parameters only")
            seen.add(id(p))


def DistributedOptimizer(optimizer, named_parameters=None, compression=Compression.none, backward_passes_per_step=1,
                         op=Average, gradient_predivide_factor=1.0, num_groups=0, groups=None,
                         sparse_as_dense=False, process_set=global_process_set):
    """Wraps `optimizer` (any torch.optim optimizer) for data-parallel training.

    named_parameters: model.named_parameters(), naming each allreduce (default: names by position).
    compression: Compression.none or Compression.fp16. op: Average, Sum or Adasum.
    backward_passes_per_step: backward passes accumulated locally before the allreduce.
    gradient_predivide_factor: Average only; divides before the sum and by size/factor after.
    num_groups, groups: checked as Horovod checks them, then left to hvd's engine, which fuses the gradients that
    are ready together by itself (the result is the same; only how they are batched differs).
    sparse_as_dense: sparse gradients (nn.Embedding(sparse=True)) are always reduced dense and handed back to the
    optimizer sparse, so True and False give the same step.
    process_set: the ranks that average the gradients; on a rank outside it, step() is the local optimizer's.
    """
    process_set_id = check_process_set(process_set, "DistributedOptimizer")
    _check_groups(optimizer, num_groups, groups)
    # The methods only: _DistributedOptimizer's own __dict__/__weakref__ descriptors would shadow the optimizer's
    # and break everything that touches self.__dict__ (load_state_dict, pickling).
    methods = {k: v for k, v in _DistributedOptimizer.__dict__.items() if k not in ("__dict__", "__weakref__")}
    cls = type(optimizer.__class__.__name__, (optimizer.__class__,), methods)
    return cls(optimizer.param_groups, named_parameters, compression, backward_passes_per_step, op,
               gradient_predivide_factor, process_set_id, process_set)
