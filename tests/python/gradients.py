"""Gradients through hvd.torch's collectives, under hvdrun at any -np.

1. torch.autograd.gradcheck on allreduce (Sum, Average, scaled): every rank runs gradcheck in lockstep, so each
   finite-difference probe perturbs the same element on all ranks at once, which is exactly what the backward
   allreduce computes.
2. Each op against a reference computed on one rank: rank r's loss is sum(output * w_r) with rank-dependent
   weights w_r; Horovod's rules give rank r's input gradient: allreduce Sum -> sum_k w_k, Average -> mean_k w_k;
   allgather -> this rank's rows of mean_k w_k; broadcast -> mean_k w_k on the root, zeros elsewhere; alltoall ->
   the rows of each receiver's w; reducescatter Sum -> size x the concatenation of every rank's w, Average -> the
   concatenation (Horovod's rule: as for allreduce, each rank's upstream gradient stands for the job's one loss).
Prints `gradients ok` on success.
"""

import torch

import hvd.torch as hvd


def weights(r, shape):
    n = 1
    for s in shape:
        n *= s
    return (torch.arange(n, dtype=torch.float64).reshape(shape) * 0.1 + r + 1).sin()


def close(what, got, want):
    if got is None or tuple(got.shape) != tuple(want.shape) or not torch.allclose(got, want, atol=1e-10):
        raise AssertionError(f"{what}: gradient {None if got is None else got.tolist()}, expected {want.tolist()}")


def input_for(rank, shape):
    return (torch.arange(shape[0] * shape[1], dtype=torch.float64).reshape(shape) + rank).requires_grad_()


def main():
    hvd.init()
    rank, size = hvd.rank(), hvd.size()

    x = torch.randn(5, dtype=torch.float64, generator=torch.Generator().manual_seed(rank)).requires_grad_()
    for op, pre, post in ((hvd.Sum, 1.0, 1.0), (hvd.Average, 1.0, 1.0), (hvd.Sum, 0.5, 3.0)):
        ok = torch.autograd.gradcheck(
            lambda t: hvd.allreduce(t, op=op, prescale_factor=pre, postscale_factor=post), (x,), raise_exception=True)
        assert ok, f"gradcheck allreduce {op}"

    shape = (3, 2)
    all_w = [weights(r, shape) for r in range(size)]
    for op, want in ((hvd.Sum, sum(all_w)), (hvd.Average, sum(all_w) / size)):
        t = input_for(rank, shape)
        (hvd.allreduce(t, op=op) * all_w[rank]).sum().backward()
        close(f"allreduce {op}", t.grad, want)

    ts = [input_for(rank, shape), input_for(rank, (2, 2))]
    outs = hvd.grouped_allreduce(ts, op=hvd.Sum)
    (outs[0] * all_w[rank]).sum().add((outs[1] * weights(rank, (2, 2))).sum()).backward()
    close("grouped_allreduce tensor 0", ts[0].grad, sum(all_w))
    close("grouped_allreduce tensor 1", ts[1].grad, sum(weights(r, (2, 2)) for r in range(size)))

    rows = [r + 1 for r in range(size)]
    t = input_for(rank, (rows[rank], 2))
    gathered_shape = (sum(rows), 2)
    (hvd.allgather(t) * weights(rank, gathered_shape)).sum().backward()
    mean_w = sum(weights(r, gathered_shape) for r in range(size)) / size
    start = sum(rows[:rank])
    close("allgather", t.grad, mean_w[start:start + rows[rank]])

    root = size - 1
    t = input_for(rank, shape)
    (hvd.broadcast(t, root_rank=root) * all_w[rank]).sum().backward()
    close("broadcast", t.grad, sum(all_w) / size if rank == root else torch.zeros(shape, dtype=torch.float64))

    # alltoall: rank r sends (r + d) % 2 + 1 rows to rank d.
    splits = [[(r + d) % 2 + 1 for d in range(size)] for r in range(size)]
    t = input_for(rank, (sum(splits[rank]), 2))
    out, received = hvd.alltoall(t, splits=splits[rank])
    recv_w = [weights(d, (sum(splits[r][d] for r in range(size)), 2)) for d in range(size)]
    (out * recv_w[rank]).sum().backward()
    want = []
    for d in range(size):  # the rows this rank sent to d sit in d's output after the rows of ranks before this one
        start = sum(splits[r][d] for r in range(rank))
        want.append(recv_w[d][start:start + splits[rank][d]])
    close("alltoall", t.grad, torch.cat(want))

    n = 2 * size
    t = input_for(rank, (n, 2))
    (hvd.reducescatter(t, op=hvd.Sum) * weights(rank, (2, 2))).sum().backward()
    close("reducescatter", t.grad, size * torch.cat([weights(r, (2, 2)) for r in range(size)]))
    t = torch.ones(size * 2, 2, dtype=torch.float64, requires_grad=True)
    (hvd.reducescatter(t, op=hvd.Average) * weights(rank, (2, 2))).sum().backward()
    close("reducescatter Average", t.grad, torch.cat([weights(r, (2, 2)) for r in range(size)]))

    hvd.shutdown()
    print(f"gradients ok rank={rank} size={size}")


if __name__ == "__main__":
    main()
