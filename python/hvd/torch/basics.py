"""Starting hvd and asking where this process stands: horovod.torch's basics over libhvd.

init() reads the job from the environment hvdrun (or mpirun) sets; without one it makes a 1-rank job.
"""

import atexit

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
    if process_sets:
        raise NotImplementedError("hvd.torch.init(process_sets=...): hvd has only the global process set; call "
                                  "init() without process_sets")
    if _C.is_initialized():
        return
    _C.init()
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
    """The global process set only: hvd has no sub-groups of ranks yet."""

    process_set_id = 0

    def size(self):
        return size()

    def rank(self):
        return rank()

    def included(self):
        return True

    def __repr__(self):
        return "ProcessSet(global)"


global_process_set = ProcessSet()


def add_process_set(process_set):
    raise NotImplementedError("hvd.torch.add_process_set: hvd has only the global process set")


def remove_process_set(process_set):
    raise NotImplementedError("hvd.torch.remove_process_set: hvd has only the global process set")


def check_process_set(process_set, what):
    if process_set is not global_process_set:
        raise NotImplementedError(f"hvd.torch.{what}: process_set={process_set!r} is not supported; hvd has only "
                                  "the global process set (leave process_set out)")
