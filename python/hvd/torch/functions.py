"""Broadcasting training state, as horovod.torch.functions: parameters, optimizer state and Python objects.

Parameters go through hvd_torch's broadcast_parameters (in place, one named broadcast each); objects are
hvd.common's broadcast_object and allgather_object (pickled, the same for every framework). Optimizer state is
root's state_dict() everywhere: its layout and scalars pickled, its tensors broadcast in place, then
load_state_dict() on the other ranks.
"""

import torch

from hvd.torch import _C
from hvd.common.objects import allgather_object, broadcast_object
from hvd.torch.basics import check_process_set, global_process_set, rank
from hvd.torch.mpi_ops import broadcast_async_, synchronize


def _broadcast_named(named, root_rank, process_set):
    """In place, root_rank's tensors on every rank of the set: hvd_torch's broadcast_parameters on the global set,
    one named broadcast each (all in flight at once) on another."""
    ps = check_process_set(process_set, "broadcast_parameters")
    if ps == 0:
        return _C.broadcast_parameters(named, root_rank)
    handles = [broadcast_async_(t, root_rank, name=f"broadcast_parameters.{n}", process_set=process_set)
               for n, t in named]
    for h in handles:
        synchronize(h)


def broadcast_parameters(params, root_rank=0, prefix=None, process_set=global_process_set):
    """Overwrites every rank's tensors with root_rank's, in place. `params`: a state_dict() (any dict of name ->
    tensor), named_parameters() (pairs) or parameters() (tensors, named by position). All ranks must pass the
    same names in the same order."""
    if isinstance(params, dict):
        items = sorted(params.items())
    else:
        items = [p if isinstance(p, tuple) else (None, p) for p in params]
    named = []
    for index, (name, tensor) in enumerate(items):
        name = f"param.{index}" if name is None else str(name)
        if not torch.is_tensor(tensor):
            raise ValueError(f"hvd.torch.broadcast_parameters: '{name}' is a {type(tensor).__name__}, not a tensor; "
                             "pass model.state_dict() or model.named_parameters()")
        named.append(((prefix or "") + name, tensor))
    _broadcast_named(named, root_rank, process_set)


class _TensorSlot:
    """Stands for a tensor in the pickled layout of root's optimizer state."""

    def __init__(self, tensor):
        self.shape, self.dtype, self.on_cpu = tuple(tensor.shape), tensor.dtype, tensor.device.type == "cpu"


def _layout(state_dict):
    state = {pid: {key: _TensorSlot(value) if torch.is_tensor(value) else value for key, value in entry.items()}
             for pid, entry in state_dict["state"].items()}
    return {"state": state, "param_groups": state_dict["param_groups"]}


def _initialized_state(optimizer):
    """Horovod's way to give an optimizer that never stepped its state: every trainable parameter's gradient set to
    zeros and one local step (no allreduce: a DistributedOptimizer's wrapped class steps, so no rank waits for the
    others). Unlike Horovod, the parameters are put back after that step (weight decay would move them, on the
    ranks that had no state only, after they were broadcast). Returns the state_dict() after it."""
    params = [p for group in optimizer.param_groups for p in group["params"] if p.requires_grad]
    for p in params:
        p.grad = torch.zeros_like(p)
    saved = [p.detach().clone() for p in params]
    if hasattr(optimizer, "_hvd"):  # a DistributedOptimizer: the class it wraps
        super(optimizer.__class__, optimizer).step()
    else:
        optimizer.step()
    with torch.no_grad():
        for p, before in zip(params, saved):
            p.copy_(before)
    return optimizer.state_dict()


def broadcast_optimizer_state(optimizer, root_rank=0, model=None, process_set=global_process_set):
    """Makes every rank's optimizer state root_rank's: per-parameter state (created where missing, dropped where
    root has none) and every param group's hyper-parameters. All ranks must have the same param groups."""
    if isinstance(optimizer, torch.optim.LBFGS):
        raise ValueError("hvd.torch.broadcast_optimizer_state: torch.optim.LBFGS is not supported (its state is "
                         "not per parameter); broadcast_object(optimizer.state_dict()) and load it instead")
    mine = optimizer.state_dict()
    if not mine["state"]:
        mine = _initialized_state(optimizer)
    layout = _layout(mine) if rank() == root_rank else None
    layout = broadcast_object(layout, root_rank, name="optimizer_state.layout", process_set=process_set)
    shape = [len(g["params"]) for g in mine["param_groups"]]
    root_shape = [len(g["params"]) for g in layout["param_groups"]]
    problems = allgather_object(None if shape == root_shape else f"rank {rank()} has param groups of {shape} "
                                f"parameters, root rank {root_rank} has {root_shape}", name="optimizer_state.check",
                                process_set=process_set)
    problems = [p for p in problems if p]
    if problems:
        raise ValueError("hvd.torch.broadcast_optimizer_state: " + "; ".join(problems) +
                         "; build the optimizer the same way on every rank")

    # Root's parameter ids, in group order, map onto this rank's parameters at the same places.
    params = [p for group in optimizer.param_groups for p in group["params"]]
    root_ids = [pid for group in layout["param_groups"] for pid in group["params"]]
    place = {pid: index for index, pid in enumerate(root_ids)}
    tensors, state = [], {}
    for pid, entry in sorted(layout["state"].items(), key=lambda item: place[item[0]]):
        values = {}
        for key, value in entry.items():
            if isinstance(value, _TensorSlot):
                if rank() == root_rank:
                    tensor = mine["state"][pid][key].contiguous()
                else:
                    device = "cpu" if value.on_cpu else params[place[pid]].device
                    tensor = torch.empty(value.shape, dtype=value.dtype, device=device)
                tensors.append((f"optimizer_state.{place[pid]}.{key}", tensor))
                value = tensor
            values[key] = value
        state[pid] = values
    _broadcast_named(tensors, root_rank, process_set)
    if rank() != root_rank:
        # load_state_dict maps root's ids onto this rank's parameters by position.
        optimizer.load_state_dict({"state": state, "param_groups": layout["param_groups"]})
