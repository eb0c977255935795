"""horovod.torch's basics: hvd.common's, the same objects (init, the job's shape, errors, process sets), so every
framework module in one process shares one runtime and one set registry."""

from hvd.common.basics import (Adasum, Average, Max, Min, Product, Sum, ccl_built, cross_rank, cross_size, cuda_built,
                               ddl_built, gloo_built, gloo_enabled, init, is_homogeneous, is_initialized, local_rank,
                               local_size, mpi_built, mpi_enabled, mpi_threads_supported, nccl_built, rank, rocm_built,
                               shutdown, size, start_timeline, stop_timeline)
from hvd.common.exceptions import HorovodInternalError, HorovodUsageError, refine, refused_at_once, started
from hvd.common.process_sets import (ProcessSet, add_process_set, check_process_set, global_process_set,
                                     process_sets, remove_process_set)

__all__ = [
    "Adasum", "Average", "Max", "Min", "Product", "Sum", "ccl_built", "cross_rank", "cross_size", "cuda_built",
    "ddl_built", "gloo_built", "gloo_enabled", "init", "is_homogeneous", "is_initialized", "local_rank",
    "local_size", "mpi_built", "mpi_enabled", "mpi_threads_supported", "nccl_built", "rank", "rocm_built",
    "shutdown", "size", "start_timeline", "stop_timeline", "HorovodInternalError", "HorovodUsageError", "refine",
    "refused_at_once", "started", "ProcessSet", "add_process_set", "check_process_set", "global_process_set",
    "process_sets", "remove_process_set",
]
