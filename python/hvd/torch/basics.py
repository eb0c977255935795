"""Starting hvd and asking where this process stands: horovod.torch's basics over libhvd.

init() reads the job from the environment hvdrun (or mpirun) sets; without one it makes a 1-rank job.
"""

import atexit

from hvd.torch import _C

HorovodInternalError = _C.HorovodInternalError

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
rank = _C.rank
size = _C.size
local_rank = _C.local_rank
local_size = _C.local_size
cross_rank = _C.cross_rank
cross_size = _C.cross_size


def is_homogeneous():
    """True when every host runs the same number of ranks."""
    if _homogeneous is None:
        raise ValueError("hvd.torch.is_homogeneous(): hvd is not initialized; call hvd.init() first")
    return _homogeneous


mpi_built = _C.mpi_built
mpi_enabled = _C.mpi_enabled
nccl_built = _C.nccl_built


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
    return _C.nccl_built()


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
