"""sparse_allreduce_async, as horovod.torch's: a sparse COO tensor reduced over ranks by allgathering its indices
and values (each rank may touch different rows), returning a callable that waits and gives the reduced sparse
tensor (values divided by the number of ranks for Average). Duplicate indices stay uncoalesced, as Horovod leaves
them; to_dense() or coalesce() sums them.
"""

import torch

from hvd.torch.basics import Average, Sum, check_process_set, global_process_set
from hvd.torch.mpi_ops import allgather_async, synchronize


def sparse_allreduce_async(tensor, name, op, process_set=global_process_set):
    """Starts reducing the sparse `tensor`; returns a function that waits and returns the result."""
    check_process_set(process_set, "sparse_allreduce_async")
    if not tensor.is_sparse:
        raise ValueError(f"hvd.torch.sparse_allreduce_async: '{name}' is a dense tensor; use allreduce_async for it")
    if op not in (Average, Sum):
        raise ValueError(f"hvd.torch.sparse_allreduce_async: op={op!r} is not supported; use hvd.Average or hvd.Sum")
    # allgather concatenates along dimension 0: the indices go as (nnz, sparse_dim) and come back transposed.
    indices = allgather_async(tensor._indices().t().contiguous(), name=f"{name}.indices", process_set=process_set)
    values = allgather_async(tensor._values().contiguous(), name=f"{name}.values", process_set=process_set)

    def result():
        gathered_values = synchronize(values)
        gathered_indices = synchronize(indices)
        if op == Average:
            gathered_values = gathered_values / process_set.size()
        return torch.sparse_coo_tensor(gathered_indices.t(), gathered_values, tensor.size(),
                                       dtype=gathered_values.dtype, device=tensor.device)

    return result
