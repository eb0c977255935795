"""Starting hvd and asking where this process stands: Horovod's basics over libhvd, for every framework module.

init() reads the job from the environment hvdrun (or mpirun) sets; without one it makes a 1-rank job.
"""

import atexit
import os

from hvd.common import _core

# Reduction ops, as Horovod names them.
Average = _core.ReduceOp.Average
Sum = _core.ReduceOp.Sum
Adasum = _core.ReduceOp.Adasum
Min = _core.ReduceOp.Min
Max = _core.ReduceOp.Max
Product = _core.ReduceOp.Product

_homogeneous = None


def init(comm=None, process_sets=None):
    """Starts the runtime. Every rank must call it; later calls do nothing."""
    from hvd.common import process_sets as sets
    if comm is not None:
        raise NotImplementedError("hvd.init(comm=...): hvd takes its ranks from hvdrun or mpirun, not from an "
                                  "MPI communicator; call init() without comm")
    if _core.is_initialized():
        return
    if process_sets == "dynamic":  # Horovod's spelling of HOROVOD_DYNAMIC_PROCESS_SETS=1
        os.environ["HOROVOD_DYNAMIC_PROCESS_SETS"] = "1"
        process_sets = None
    static = [sets.ranks_of(ps) for ps in (process_sets or [])]
    if static:
        _core.init_with_process_sets(static)
    else:
        _core.init()
    sets.registered_at_init(process_sets or [])
    # As Horovod: a script that never calls shutdown() still stops the engine before the interpreter goes away.
    atexit.register(_core.shutdown)
    _learn_homogeneous()


def _learn_homogeneous():
    # Every rank learns every host's rank count here, where all ranks are known to take part (init and each
    # elastic reset).
    global _homogeneous
    local_sizes = _core.allgather_int64(local_size(), "hvd.init.local_sizes")
    _homogeneous = all(s == local_sizes[0] for s in local_sizes)


def after_reset():
    """hvd.elastic.run calls this on every rank once the job is re-formed: what init() learns, learned again."""
    global _homogeneous
    _homogeneous = None
    _learn_homogeneous()


def shutdown():
    """Stops the runtime; pending ops fail with 'hvd is shutting down'."""
    from hvd.common import process_sets as sets
    global _homogeneous
    _core.shutdown()
    _homogeneous = None
    sets.forget_all()  # the runtime's sets go with it


is_initialized = _core.is_initialized


def _initialized(what):
    if not _core.is_initialized():
        # Horovod's words, so scripts that match on them keep working.
        raise ValueError(f"Horovod has not been initialized; use hvd.init(). (hvd.{what}() was called before "
                         "hvd.init())")


def rank():
    """This process's rank in the job (0 .. size()-1)."""
    _initialized("rank")
    return _core.rank()


def size():
    """The number of ranks in the job."""
    _initialized("size")
    return _core.size()


def local_rank():
    _initialized("local_rank")
    return _core.local_rank()


def local_size():
    _initialized("local_size")
    return _core.local_size()


def cross_rank():
    _initialized("cross_rank")
    return _core.cross_rank()


def cross_size():
    _initialized("cross_size")
    return _core.cross_size()


def is_homogeneous():
    """True when every host runs the same number of ranks."""
    if _homogeneous is None:
        raise ValueError("hvd.is_homogeneous(): hvd is not initialized; call hvd.init() first")
    return _homogeneous


mpi_built = _core.mpi_built
mpi_enabled = _core.mpi_enabled


def nccl_built():
    """As Horovod: the NCCL version this libhvd was built with as an int (2.18.5 is 21805), 0 without NCCL."""
    if not _core.nccl_built():
        return 0
    return _nccl_version()


def _nccl_version():
    # libhvd links libnccl, so it is in this process already: ask it (ncclGetVersion), loading nothing new.
    import ctypes
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
    return _core.mpi_enabled()


def gloo_built():
    """hvd's built-in TCP/shared-memory backend takes Gloo's place: always built."""
    return True


def gloo_enabled():
    """True when this process moves CPU tensors over the built-in backend (not MPI)."""
    return _core.cpu_backend() == "builtin"


def cuda_built():
    """GPU tensors go through NCCL, so CUDA is built exactly when NCCL is."""
    return bool(_core.nccl_built())


def rocm_built():
    return False


def ddl_built():
    return False


def ccl_built():
    return False


def start_timeline(file_path, mark_cycles=False):
    """Starts recording this rank's timeline (a Chrome trace) to file_path; not collective."""
    if not hasattr(_core, "start_timeline"):
        raise NotImplementedError("hvd.start_timeline: this libhvd cannot start a timeline at run time; set "
                                  "HOROVOD_TIMELINE=" + str(file_path) + " in the job's environment (hvdrun -x "
                                  "HOROVOD_TIMELINE=...) to record one for the whole run")
    _core.start_timeline(str(file_path), bool(mark_cycles))


def stop_timeline():
    """Stops the timeline; its file is complete afterwards."""
    if not hasattr(_core, "stop_timeline"):
        raise NotImplementedError("hvd.stop_timeline: this libhvd cannot stop a timeline at run time; a "
                                  "HOROVOD_TIMELINE set at start records until shutdown")
    _core.stop_timeline()
