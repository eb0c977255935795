"""Process sets, as Horovod's: ranks that run collectives among themselves. A ProcessSet holds the runtime's id
for its ranks; every framework's ops take process_set= and pass check_process_set()'s id to their binding."""

from hvd.common import _core
from hvd.common.basics import rank, size
from hvd.common.exceptions import HorovodInternalError, refine


class ProcessSet:
    """Ranks that run collectives among themselves (Horovod's ProcessSet). Register it with init(process_sets=[...])
    or add_process_set(); its ops then pass process_set=. Ranks are the job's ranks, kept sorted."""

    def __init__(self, ranks):
        if isinstance(ranks, (str, bytes)) or not hasattr(ranks, "__iter__"):
            raise ValueError(f"hvd.ProcessSet({ranks!r}): pass a list of ranks")
        ranks = list(ranks)
        if any(not isinstance(r, int) or isinstance(r, bool) for r in ranks):
            raise ValueError(f"hvd.ProcessSet({ranks!r}): ranks must be ints")
        self.ranks = sorted(ranks)
        self.process_set_id = None

    def _id(self, what):
        if self.process_set_id is None:
            raise ValueError(f"hvd.{what}: {self!r} is not registered (removed, or never added); pass it to "
                             "init(process_sets=[...]) or add_process_set() first")
        return self.process_set_id

    def size(self):
        """The number of ranks in the set."""
        if self.process_set_id == 0:
            return size()
        return len(self.ranks) if self.ranks is not None else None

    def rank(self):
        """This rank's place in the set (0..size()-1), -1 when it is not in it."""
        return _core.process_set_rank(self._id("ProcessSet.rank"))

    def included(self):
        """True when this rank is in the set."""
        return self.rank() >= 0

    def invalidate(self):
        self.process_set_id = None

    def __repr__(self):
        return f"ProcessSet(process_set_id={self.process_set_id}, ranks={self.ranks})"


class _GlobalProcessSet(ProcessSet):
    """Set 0: every rank of the job (its ranks are known once init() ran)."""

    def __init__(self):
        self.process_set_id = 0

    @property
    def ranks(self):
        return list(range(size())) if _core.is_initialized() else []

    def rank(self):
        return rank()

    def __repr__(self):
        return "ProcessSet(global)"


global_process_set = _GlobalProcessSet()
_registry = {}  # id -> the ProcessSet object registered under it (not the global one)


def ranks_of(process_set):
    """The sorted ranks of a ProcessSet or a list of ranks (init(process_sets=...) takes either)."""
    if isinstance(process_set, ProcessSet):
        return list(process_set.ranks)
    return ProcessSet(process_set).ranks if process_set is not None else None


def _id_of_ranks(ranks):
    for i in _core.process_set_ids():
        if i and list(_core.process_set_ranks(i)) == list(ranks):
            return i
    raise ValueError(f"hvd: no registered process set has ranks {ranks}")


def registered_at_init(process_sets):
    """init() registered these sets in the runtime: their objects learn their ids."""
    _registry.clear()
    for ps in process_sets:
        if isinstance(ps, ProcessSet):
            ps.process_set_id = _id_of_ranks(ps.ranks)
            _registry[ps.process_set_id] = ps


def forget_all():
    """The runtime dropped every set but the global one (shutdown, an elastic reset): their objects are invalid."""
    for ps in _registry.values():
        ps.invalidate()
    _registry.clear()


def add_process_set(process_set):
    """Registers a set (a ProcessSet or a list of ranks) on every rank; needs HOROVOD_DYNAMIC_PROCESS_SETS=1 (or
    init(process_sets="dynamic")). Collective: every rank calls it, in the same order. Returns the ProcessSet."""
    if not isinstance(process_set, ProcessSet):
        process_set = ProcessSet(process_set)
    if process_set.process_set_id is not None:
        raise ValueError(f"hvd.add_process_set: {process_set!r} is registered already")
    try:
        process_set.process_set_id = _core.add_process_set(process_set.ranks)
    except HorovodInternalError as e:
        raise refine(e) from None
    _registry[process_set.process_set_id] = process_set
    return process_set


def remove_process_set(process_set):
    """Unregisters a set on every rank (collective). False for the global set, or a set not registered."""
    if process_set.process_set_id in (None, 0):
        return False
    if process_set.process_set_id not in _core.process_set_ids():
        process_set.invalidate()
        return False
    try:
        _core.remove_process_set(process_set.process_set_id)
    except HorovodInternalError as e:
        raise refine(e) from None
    _registry.pop(process_set.process_set_id, None)
    process_set.invalidate()
    return True


def process_sets():
    """Every registered set, the global one first."""
    out = [global_process_set]
    for i in _core.process_set_ids():
        if i:
            if i not in _registry:
                ps = ProcessSet(_core.process_set_ranks(i))
                ps.process_set_id = i
                _registry[i] = ps
            out.append(_registry[i])
    return out


def check_process_set(process_set, what):
    """The runtime id of `process_set`, for the bindings' calls; refuses what is not a registered ProcessSet."""
    if process_set is None or process_set is global_process_set:
        return 0
    if not isinstance(process_set, ProcessSet):
        raise ValueError(f"hvd.{what}: process_set={process_set!r} is not a ProcessSet; pass one from "
                         "add_process_set() or init(process_sets=[...])")
    return process_set._id(what)
