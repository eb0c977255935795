"""Python objects across ranks, for every framework: broadcast_object and allgather_object pickle the object and
move its bytes through hvd.common._core (lengths first), never through a framework's tensors."""

import pickle

from hvd.common import _core
from hvd.common.basics import rank
from hvd.common.exceptions import blocking
from hvd.common.process_sets import check_process_set, global_process_set


def broadcast_object(obj, root_rank=0, name=None, process_set=global_process_set):
    """Returns root_rank's `obj` (pickled) on every rank of the set."""
    ps = check_process_set(process_set, "broadcast_object")
    data = pickle.dumps(obj) if rank() == root_rank else b""
    return pickle.loads(blocking(_core.broadcast_bytes, data, root_rank, "broadcast_object." + (name or "unnamed"), ps))


def allgather_object(obj, name=None, process_set=global_process_set):
    """Returns the list of every rank's `obj` (pickled), in rank order of the set."""
    ps = check_process_set(process_set, "allgather_object")
    gathered = blocking(_core.allgather_bytes, pickle.dumps(obj), "allgather_object." + (name or "unnamed"), ps)
    return [pickle.loads(data) for data in gathered]
