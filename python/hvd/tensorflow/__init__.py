"""Horovod's TensorFlow API on hvd: a script changes `import horovod.tensorflow as hvd` to
`import hvd.tensorflow as hvd` and runs under `hvdrun -np N $(scripts/framework-python.sh tensorflow) train.py`.

The ops are hvd's TensorFlow kernels (C++, hvd/tensorflow/_hvd_ops.so) over libhvd; init, the job's shape, process
sets, objects and the error record are hvd.common's, shared with every framework module (docs/tensorflow.md).
"""

import tensorflow as tf  # noqa: F401  (first: the op library links TensorFlow's framework library)

import hvd.common  # noqa: F401
from hvd.common import failure_record as _failure_record
from hvd.common.exceptions import HorovodInternalError, HostsUpdatedInterrupt  # noqa: F401
from hvd.tensorflow.compression import Compression  # noqa: F401
from hvd.tensorflow.functions import (allgather_object, broadcast_object, broadcast_object_fn,  # noqa: F401
                                      broadcast_variables)
from hvd.tensorflow.gradient_tape import DistributedGradientTape, PartialDistributedGradientTape  # noqa: F401
from hvd.tensorflow.hooks import BroadcastGlobalVariablesHook, broadcast_global_variables  # noqa: F401
from hvd.tensorflow.mpi_ops import (Adasum, Average, Max, Min, Product, ProcessSet, Sum,  # noqa: F401
                                    _allreduce, _grouped_allreduce, _grouped_reducescatter, _reducescatter,
                                    add_process_set, allgather, alltoall, barrier, broadcast, broadcast_, ccl_built,
                                    cross_rank, cross_size, cuda_built, ddl_built, global_process_set, gloo_built,
                                    gloo_enabled, grouped_allgather, init, is_homogeneous, is_initialized, join,
                                    local_rank, local_rank_op, local_size, local_size_op, mpi_built, mpi_enabled,
                                    mpi_threads_supported, nccl_built, process_set_included_op, rank, rank_op,
                                    remove_process_set, rocm_built, shutdown, size, size_op, start_timeline,
                                    stop_timeline)
from hvd.tensorflow.optimizer import DistributedOptimizer  # noqa: F401
from hvd.tensorflow.sync_batch_norm import SyncBatchNormalization  # noqa: F401
from hvd.tensorflow.reductions import (allreduce, grouped_allreduce, grouped_reducescatter,  # noqa: F401
                                       reducescatter)
from hvd.tensorflow import elastic  # noqa: F401,E402
from hvd.tensorflow.util import _cache, _executing_eagerly, _make_subgraph, refs_to_vars, vars_to_refs  # noqa: F401

_failure_record.install()  # under hvdrun: an uncaught exception goes to this rank's error file for the report
