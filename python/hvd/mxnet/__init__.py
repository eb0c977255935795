"""Horovod's MXNet API on hvd: a script changes `import horovod.mxnet as hvd` to `import hvd.mxnet as hvd` and runs
under `hvdrun -np N python3 train.py`.

The collectives run on MXNet's engine (hvd.mxnet._mx pushes them through MXNet's C API, found in the libmxnet
this process imported), so a call returns at once and reading its output waits. Not here yet: GPU NDArrays,
hvd.elastic, sparse gradients.
"""

import mxnet as mx

import hvd.common  # noqa: F401  (before _mx, which uses the types hvd.common._core registers)

try:
    from hvd.mxnet import _mx
except ImportError as e:
    raise ImportError(f"hvd.mxnet: cannot load its extension hvd.mxnet._mx ({e}); it is built for /usr/bin/python3 "
                      "(or a venv of it: scripts/framework-python.sh mxnet) and needs build/lib or the installed "
                      "libhvd") from e

_mx.load(mx.base._LIB._name)  # the libmxnet whose C API the ops call

from hvd.common.basics import (Adasum, Average, Max, Min, Product, Sum, ccl_built, cross_rank,  # noqa: E402
                               cross_size, cuda_built, ddl_built, gloo_built, gloo_enabled, init, is_homogeneous,
                               is_initialized, local_rank, local_size, mpi_built, mpi_enabled, mpi_threads_supported,
                               nccl_built, rank, rocm_built, shutdown, size, start_timeline, stop_timeline)
from hvd.common.exceptions import HorovodInternalError, HorovodUsageError  # noqa: E402
from hvd.common.process_sets import (ProcessSet, add_process_set, global_process_set,  # noqa: E402
                                     remove_process_set)
from hvd.mxnet.compression import Compression, Compressor  # noqa: E402
from hvd.mxnet.functions import allgather_object, broadcast_object, broadcast_parameters  # noqa: E402
from hvd.mxnet.mpi_ops import (allgather, allreduce, allreduce_, alltoall, barrier, broadcast,  # noqa: E402
                               broadcast_, grouped_allgather, grouped_allreduce, grouped_allreduce_, join,
                               reducescatter)
from hvd.mxnet.optimizer import DistributedOptimizer, DistributedTrainer  # noqa: E402
from hvd.common import failure_record as _failure_record  # noqa: E402

_failure_record.install()  # under hvdrun: an uncaught exception goes to this rank's error file for the report

__all__ = [
    "init", "shutdown", "is_initialized", "rank", "size", "local_rank", "local_size", "cross_rank", "cross_size",
    "is_homogeneous", "mpi_built", "mpi_enabled", "mpi_threads_supported", "nccl_built", "gloo_built",
    "gloo_enabled", "cuda_built", "rocm_built", "ddl_built", "ccl_built", "start_timeline", "stop_timeline",
    "Average", "Sum", "Adasum", "Min", "Max", "Product", "HorovodInternalError", "HorovodUsageError", "ProcessSet",
    "global_process_set", "add_process_set", "remove_process_set", "Compression", "Compressor",
    "allreduce", "allreduce_", "grouped_allreduce", "grouped_allreduce_", "allgather", "grouped_allgather",
    "broadcast", "broadcast_", "alltoall", "reducescatter", "barrier", "join", "broadcast_object",
    "allgather_object", "broadcast_parameters", "DistributedOptimizer", "DistributedTrainer",
]
