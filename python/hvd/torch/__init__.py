"""Horovod's PyTorch API on hvd: a script changes `import horovod.torch as hvd` to `import hvd.torch as hvd` and
runs under `hvdrun -np N python3 train.py`.

The collectives, the engine and DistributedOptimizer's gradient hooks are libhvd's and hvd_torch's (C++); this
package is the Python face of them (hvd.torch._C is the binding).
"""

import torch  # noqa: F401  (first: the binding links libtorch_python, which torch's import initializes)

import hvd.common  # noqa: F401  (before _C, which uses the types hvd.common._core registers)

try:
    from hvd.torch import _C  # noqa: F401
except ImportError as e:
    raise ImportError(f"hvd.torch: cannot load its extension hvd.torch._C ({e}); it is built for the torch of "
                      "Debian's python3-torch (run /usr/bin/python3) and needs build/lib or the installed "
                      "libhvd and libhvd_torch") from e

from hvd.torch.basics import (Adasum, Average, HorovodInternalError, HorovodUsageError, Max, Min, ProcessSet,
                              Product, Sum,
                              add_process_set, ccl_built, cross_rank, cross_size, cuda_built, ddl_built,
                              global_process_set, gloo_built, gloo_enabled, init, is_homogeneous, is_initialized,
                              local_rank, local_size, mpi_built, mpi_enabled, mpi_threads_supported, nccl_built,
                              rank, remove_process_set, rocm_built, shutdown, size, start_timeline, stop_timeline)
from hvd.torch.compression import Compression, Compressor
from hvd.torch.functions import allgather_object, broadcast_object, broadcast_optimizer_state, broadcast_parameters
from hvd.torch.mpi_ops import (allgather, allgather_async, allreduce, allreduce_, allreduce_async, allreduce_async_,
                               alltoall, alltoall_async, barrier, broadcast, broadcast_, broadcast_async,
                               broadcast_async_, grouped_allreduce, grouped_allreduce_, grouped_allreduce_async,
                               grouped_allreduce_async_, join, poll, synchronize)
from hvd.torch.reducescatter import reducescatter, reducescatter_async
from hvd.torch.grouped import (grouped_allgather, grouped_allgather_async, grouped_reducescatter,
                               grouped_reducescatter_async)
from hvd.torch.sparse import sparse_allreduce_async
from hvd.torch.optimizer import DistributedOptimizer
from hvd.torch.sync_batch_norm import SyncBatchNorm
from hvd.torch import elastic  # noqa: E402  (hvd.elastic: after the API it uses)
from hvd.common import failure_record as _failure_record

_failure_record.install()  # under hvdrun: an uncaught exception goes to this rank's error file for the report

__all__ = [
    "init", "shutdown", "is_initialized", "rank", "size", "local_rank", "local_size", "cross_rank", "cross_size",
    "is_homogeneous", "mpi_built", "mpi_enabled", "mpi_threads_supported", "nccl_built", "gloo_built",
    "gloo_enabled", "cuda_built", "rocm_built", "ddl_built", "ccl_built", "start_timeline", "stop_timeline",
    "Average", "Sum", "Adasum", "Min", "Max", "Product", "HorovodInternalError", "HorovodUsageError", "ProcessSet",
    "global_process_set",
    "add_process_set", "remove_process_set", "Compression", "Compressor",
    "allreduce", "allreduce_", "allreduce_async", "allreduce_async_", "grouped_allreduce", "grouped_allreduce_",
    "grouped_allreduce_async", "grouped_allreduce_async_", "allgather", "allgather_async", "broadcast",
    "broadcast_", "broadcast_async", "broadcast_async_", "alltoall", "alltoall_async", "reducescatter",
    "reducescatter_async", "grouped_allgather", "grouped_allgather_async", "grouped_reducescatter",
    "grouped_reducescatter_async", "sparse_allreduce_async", "poll", "synchronize", "barrier", "join",
    "broadcast_parameters", "broadcast_optimizer_state", "broadcast_object", "allgather_object",
    "DistributedOptimizer", "SyncBatchNorm", "elastic",
]
