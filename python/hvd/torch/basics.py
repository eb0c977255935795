"""Starting hvd and asking where this process stands: horovod.torch's basics over libhvd.

init() reads the job from the environment hvdrun (or mpirun) sets; without one it makes a 1-rank job.
"""

import atexit
import os

from hvd.torch import _C

HorovodInternalError = _C.HorovodInternalError


class HorovodUsageError(ValueError, HorovodInternalError):
    """A call libhvd refused as bad usage (an argument checked on the calling rank, a second op under a name still
    in flight, an op that cannot run after join). Horovod raises ValueError for the first two and RuntimeError for
    others; this is both (and a HorovodInternalError), so code written for either catches it."""


def _refine(error):
    """libhvd's error as Python should see it: a usage error becomes HorovodUsageError, others are unchanged."""
    if getattr(error, "kind", None) == _C.ErrorKind.Usage and not isinstance(error, HorovodUsageError):
        refined = HorovodUsageError(str(error))
        for field in ("kind", "rank", "host", "peer", "tensor"):
            setattr(refined, field, getattr(error, field))
        return refined
    return error


def refused_at_once(handle):
    """Returns `handle`, raising HorovodUsageError now when libhvd refused the op on enqueue (its handle is then
    already done with that error), as Horovod raises from the *_async call itself."""
    if handle.poll():
        try:
            handle.wait()  # done: returns at once; a result is kept for synchronize()
        except HorovodInternalError as e:
            refined = _refine(e)
            if refined is not e:
                raise refined from None
    return handle


def started(call, *args):
    """Starts an op with `call(*args)` (a _C *_async function) and returns its handle; whatever libhvd refuses at
    once (an argument checked on this rank, a name in flight) raises HorovodUsageError here."""
    try:
        handle = call(*args)
    except HorovodInternalError as e:
        raise _refine(e) from None
    return refused_at_once(handle)


# Reduction ops, as horovod.torch names them.
Average = _C.ReduceOp.Average
Sum = _C.ReduceOp.Sum
Adasum = _C.ReduceOp.Adasum
Min = _C.ReduceOp.Min
Max = _C.ReduceOp.Max
Product = _C.ReduceOp.Product

_homogeneous = None


def init(comm=None, process_sets=None):
    """Starts the runtime. Every rank must call it; later calls do nothing."""
    if comm is not None:
        raise NotImplementedError("hvd.torch.init(comm=...): hvd takes its ranks from hvdrun or mpirun, not from an "
                                  "MPI communicator; call init() without comm")
    if _C.is_initialized():
        return
    if process_sets == "dynamic":  # Horovod's spelling of HOROVOD_DYNAMIC_PROCESS_SETS=1
        os.environ["HOROVOD_DYNAMIC_PROCESS_SETS"] = "1"
        process_sets = None
    static = [_ranks_of(ps, "hvd.torch.init(process_sets=...)") for ps in (process_sets or [])]
    if static:
        _C.init_with_process_sets(static)
    else:
        _C.init()
    _registry.clear()
    for ps in process_sets or []:
        if isinstance(ps, ProcessSet):
            ps.process_set_id = _id_of_ranks(ps.ranks)
            _registry[ps.process_set_id] = ps
    # As Horovod: a script that never calls shutdown() still stops the engine before the interpreter goes away.
    atexit.register(_C.shutdown)
    _learn_homogeneous()


def _learn_homogeneous():
    # Every rank learns every host's rank count here, where all ranks are known to take part (init and each
    # elastic reset).
    global _homogeneous
    import torch
    local_sizes = _C.allgather_async(torch.tensor([local_size()], dtype=torch.int32), "hvd.init.local_sizes").wait()
    _homogeneous = bool((local_sizes == local_sizes[0]).all())


def _after_reset():
    """hvd.elastic.run calls this on every rank once the job is re-formed: what init() learns, learned again."""
    global _homogeneous
    _homogeneous = None
    _learn_homogeneous()


def shutdown():
    """Stops the runtime; pending ops fail with 'hvd is shutting down'."""
    global _homogeneous
    _C.shutdown()
    _homogeneous = None
    for ps in _registry.values():  # the runtime's sets go with it
        ps.invalidate()
    _registry.clear()


is_initialized = _C.is_initialized


def _initialized(what):
    if not _C.is_initialized():
        # Horovod's words, so scripts that match on them keep working.
        raise ValueError(f"Horovod has not been initialized; use hvd.init(). (hvd.torch.{what}() was called "
                         "before hvd.init())")


def rank():
    """This process's rank in the job (0 .. size()-1)."""
    _initialized("rank")
    return _C.rank()


def size():
    """The number of ranks in the job."""
    _initialized("size")
    return _C.size()


def local_rank():
    _initialized("local_rank")
    return _C.local_rank()


def local_size():
    _initialized("local_size")
    return _C.local_size()


def cross_rank():
    _initialized("cross_rank")
    return _C.cross_rank()


def cross_size():
    _initialized("cross_size")
    return _C.cross_size()


def is_homogeneous():
    """True when every host runs the same number of ranks."""
    if _homogeneous is None:
        raise ValueError("hvd.torch.is_homogeneous(): hvd is not initialized; call hvd.init() first")
    return _homogeneous


mpi_built = _C.mpi_built
mpi_enabled = _C.mpi_enabled


def nccl_built():
    """As Horovod: the NCCL version this libhvd was built with as an int (2.18.5 is 21805), 0 without NCCL."""
    if not _C.nccl_built():
        return 0
    return _nccl_version()


def _nccl_version():
    # libhvd links libnccl, so it is in this process already: ask it (ncclGetVersion), loading nothing new.
    import ctypes
    import os
    version = ctypes.c_int(0)
    for name in ("libnccl.so.2", "libnccl.so"):
        try:
            lib = ctypes.CDLL(name, mode=os.RTLD_NOLOAD | os.RTLD_LAZY)
        except OSError:
            continue
        if lib.ncclGetVersion(ctypes.byref(version)) == 0 and version.value > 0:
            return version.value
    return 1  # built with NCCL, version unknown: still a true value


def mpi_threads_supported():
    """hvd calls MPI from its one background thread only, so any thread may call hvd when MPI is in use."""
    return _C.mpi_enabled()


def gloo_built():
    """hvd's built-in TCP/shared-memory backend takes Gloo's place: always built."""
    return True


def gloo_enabled():
    """True when this process moves CPU tensors over the built-in backend (not MPI)."""
    return _C.cpu_backend() == "builtin"


def cuda_built():
    """GPU tensors go through NCCL, so CUDA is built exactly when NCCL is."""
    return bool(_C.nccl_built())


def rocm_built():
    return False


def ddl_built():
    return False


def ccl_built():
    return False


def start_timeline(file_path, mark_cycles=False):
    """Starts recording this rank's timeline (a Chrome trace) to file_path; not collective."""
    if not hasattr(_C, "start_timeline"):
        raise NotImplementedError("hvd.torch.start_timeline: this libhvd cannot start a timeline at run time; set "
                                  "HOROVOD_TIMELINE=" + str(file_path) + " in the job's environment (hvdrun -x "
                                  "HOROVOD_TIMELINE=...) to record one for the whole run")
    _C.start_timeline(str(file_path), bool(mark_cycles))


def stop_timeline():
    """Stops the timeline; its file is complete afterwards."""
    if not hasattr(_C, "stop_timeline"):
        raise NotImplementedError("hvd.torch.stop_timeline: this libhvd cannot stop a timeline at run time; a "
                                  "HOROVOD_TIMELINE set at start records until shutdown")
    _C.stop_timeline()


class ProcessSet:
    """Ranks that run collectives among themselves (Horovod's ProcessSet). Register it with init(process_sets=[...])
    or add_process_set(); its ops then pass process_set=. Ranks are the job's ranks, kept sorted."""

    def __init__(self, ranks):
        if isinstance(ranks, (str, bytes)) or not hasattr(ranks, "__iter__"):
            raise ValueError(f"hvd.torch.ProcessSet({ranks!r}): pass a list of ranks")
        ranks = list(ranks)
        if any(not isinstance(r, int) or isinstance(r, bool) for r in ranks):
            raise ValueError(f"hvd.torch.ProcessSet({ranks!r}): ranks must be ints")
        self.ranks = sorted(ranks)
        self.process_set_id = None

    def _id(self, what):
        if self.process_set_id is None:
            raise ValueError(f"hvd.torch.{what}: {self!r} is not registered (removed, or never added); pass it to "
                             "init(process_sets=[...]) or add_process_set() first")
        return self.process_set_id

    def size(self):
        """The number of ranks in the set."""
        if self.process_set_id == 0:
            return size()
        return len(self.ranks) if self.ranks is not None else None

    def rank(self):
        """This rank's place in the set (0..size()-1), -1 when it is not in it."""
        return _C.process_set_rank(self._id("ProcessSet.rank"))

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
        return list(range(size())) if _C.is_initialized() else []

    def rank(self):
        return rank()

    def __repr__(self):
        return "ProcessSet(global)"


global_process_set = _GlobalProcessSet()
_registry = {}  # id -> the ProcessSet object registered under it (not the global one)


def _ranks_of(process_set, what):
    if isinstance(process_set, ProcessSet):
        return list(process_set.ranks)
    return ProcessSet(process_set).ranks if process_set is not None else None


def _id_of_ranks(ranks):
    for i in _C.process_set_ids():
        if i and list(_C.process_set_ranks(i)) == list(ranks):
            return i
    raise ValueError(f"hvd.torch: no registered process set has ranks {ranks}")


def add_process_set(process_set):
    """Registers a set (a ProcessSet or a list of ranks) on every rank; needs HOROVOD_DYNAMIC_PROCESS_SETS=1 (or
    init(process_sets="dynamic")). Collective: every rank calls it, in the same order. Returns the ProcessSet."""
    if not isinstance(process_set, ProcessSet):
        process_set = ProcessSet(process_set)
    if process_set.process_set_id is not None:
        raise ValueError(f"hvd.torch.add_process_set: {process_set!r} is registered already")
    try:
        process_set.process_set_id = _C.add_process_set(process_set.ranks)
    except HorovodInternalError as e:
        raise _refine(e) from None
    _registry[process_set.process_set_id] = process_set
    return process_set


def remove_process_set(process_set):
    """Unregisters a set on every rank (collective). False for the global set, or a set not registered."""
    if process_set.process_set_id in (None, 0):
        return False
    if process_set.process_set_id not in _C.process_set_ids():
        process_set.invalidate()
        return False
    try:
        _C.remove_process_set(process_set.process_set_id)
    except HorovodInternalError as e:
        raise _refine(e) from None
    _registry.pop(process_set.process_set_id, None)
    process_set.invalidate()
    return True


def process_sets():
    """Every registered set, the global one first."""
    out = [global_process_set]
    for i in _C.process_set_ids():
        if i:
            if i not in _registry:
                ps = ProcessSet(_C.process_set_ranks(i))
                ps.process_set_id = i
                _registry[i] = ps
            out.append(_registry[i])
    return out


def check_process_set(process_set, what):
    """The runtime id of `process_set`, for the _C calls; refuses what is not a registered ProcessSet."""
    if process_set is None or process_set is global_process_set:
        return 0
    if not isinstance(process_set, ProcessSet):
        raise ValueError(f"hvd.torch.{what}: process_set={process_set!r} is not a ProcessSet; pass one from "
                         "add_process_set() or init(process_sets=[...])")
    return process_set._id(what)
