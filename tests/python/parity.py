"""Horovod's semantics that hvd.torch matches (issue 20, items 2-10), under hvdrun at -np 2 or more, through
`hvd.torch` or, with PARITY_MODULE=horovod.torch under `hvdrun --horovod-compat`, through the `horovod` shim.

- rank()/size() before init() raise ValueError with Horovod's advice; nccl_built() is an int (0 without NCCL).
- A second op under a name in flight on this rank raises HorovodUsageError (a ValueError) at once, for allreduce,
  allgather, broadcast and reducescatter; the first op still completes.
- Integer pre/postscale: scaled in float64 on each rank and cast back before the sum (allreduce, reducescatter);
  integer Average truncates toward zero (Horovod's newer tests: div(rounding_mode='trunc')). float16 pre/postscale of
  reducescatter and grouped_reducescatter: in float32, rounded once.
- reducescatter's gradient (allgathered, times size for Sum); op=Adasum raises a RuntimeError.
- While rank 0 has joined, allgather and broadcast on the others raise a RuntimeError naming rank 0; allreduce
  goes on.
- grouped_allgather and grouped_reducescatter: values, scale factors and gradients.
- sparse_allreduce_async equals the dense allreduce; DistributedOptimizer with nn.Embedding(sparse=True) and
  SparseAdam steps identically on every rank, sparse_as_dense True or False.
- Adasum of parallel vectors near float32's smallest normal is their average; a zero vector adds nothing.
- SyncBatchNorm on CPU equals BatchNorm1d over every rank's batch (output, running stats, gradients).
- DistributedOptimizer: num_groups/groups checked as Horovod, no named_parameters, the synchronize()+step()
  warning; broadcast_optimizer_state before any step, with a parameter that has no gradient.
Prints `parity ok rank=R size=N` on success; any mismatch raises (non-zero exit).
"""

import time
import warnings

import torch

from parity_support import expect_raises, hvd


def test_before_init():
    expect_raises(ValueError, hvd.rank, "Horovod has not been initialized; use hvd.init().")
    expect_raises(ValueError, hvd.size, "Horovod has not been initialized; use hvd.init().")


def test_basics():
    built = hvd.nccl_built()
    assert type(built) is int and (built == 0 or built >= 2000), f"nccl_built() = {built!r}"
    assert hvd.mpi_built() in (True, False) and hvd.gloo_built() is True


def test_duplicate_name(rank, size):
    starts = {
        "allreduce": lambda name: hvd.allreduce_async(torch.ones(5), name=name),
        "allgather": lambda name: hvd.allgather_async(torch.ones(2, 3), name=name),
        "broadcast": lambda name: hvd.broadcast_async(torch.ones(4), root_rank=0, name=name),
        "reducescatter": lambda name: hvd.reducescatter_async(torch.ones(2 * size), name=name),
    }
    for op, start in starts.items():
        for tester in range(size):
            name = f"dup.{op}.{tester}"
            # The others start the op only after the barrier, so the tester's first one is in flight for sure.
            if rank == tester:
                first = start(name)
                began = time.monotonic()
                e = expect_raises(ValueError, lambda: start(name), f"'{name}'", "already in flight on rank")
                assert isinstance(e, hvd.HorovodUsageError) and isinstance(e, hvd.HorovodInternalError)
                assert time.monotonic() - began < 5, f"{op}: the refusal took {time.monotonic() - began:.1f} s"
                hvd.barrier()
            else:
                hvd.barrier()
                first = start(name)
            hvd.synchronize(first)


def test_integer_scaling(rank, size):
    f = 0.37
    for dtype in (torch.int32, torch.int64):
        ranks = [torch.arange(-40, 40, 7, dtype=dtype) * (r + 1) for r in range(size)]
        mine = ranks[rank]
        want = sum((t.to(torch.float64) * f).to(dtype) for t in ranks)
        got = hvd.allreduce(mine, op=hvd.Sum, prescale_factor=f)
        assert got.dtype == dtype and torch.equal(got, want), f"{dtype} prescale: {got.tolist()} != {want.tolist()}"
        total = sum(ranks)
        want = (total.to(torch.float64) * f).to(dtype)
        got = hvd.synchronize(hvd.allreduce_async(mine, op=hvd.Sum, postscale_factor=f))
        assert torch.equal(got, want), f"{dtype} postscale: {got.tolist()} != {want.tolist()}"
        inplace = mine.clone()
        hvd.allreduce_(inplace, op=hvd.Sum, prescale_factor=f)
        assert torch.equal(inplace, sum((t.to(torch.float64) * f).to(dtype) for t in ranks)), f"{dtype} in place"
        odd = torch.tensor([-3, -1, 1, 3], dtype=dtype) if rank == 0 else torch.zeros(4, dtype=dtype)
        got = hvd.allreduce(odd, op=hvd.Average, name=f"int.average.{dtype}")
        want = torch.div(torch.tensor([-3, -1, 1, 3], dtype=dtype), size, rounding_mode="trunc")
        assert torch.equal(got, want), f"{dtype} Average truncates: {got.tolist()} != {want.tolist()}"
        x = [torch.arange(3 * size, dtype=dtype) - r for r in range(size)]
        got = hvd.reducescatter(x[rank], op=hvd.Sum, prescale_factor=f)
        want = sum((t.to(torch.float64) * f).to(dtype) for t in x)[rank * 3:(rank + 1) * 3]
        assert torch.equal(got, want), f"{dtype} reducescatter prescale: {got.tolist()} != {want.tolist()}"


def test_half_scaling(rank, size):
    """float16 pre/postscale of reducescatter (and grouped) in float32, rounded once, as Horovod's CPU scaling; torch's
    own `half * float` rounds the factor to half first and misses by an ulp on some of these values."""
    f = 0.00838829794155349
    x = ((torch.arange(4 * size) - 2 * size) * 7).to(torch.float16)
    want = (x.float() * f).to(torch.float16)
    assert not torch.equal(x * f, want), "the values no longer tell the two roundings apart"
    mine = x if rank == 0 else torch.zeros_like(x)  # the sum is rank 0's tensor, exactly
    block = want[rank * 4:(rank + 1) * 4]
    for kw in ({"prescale_factor": f}, {"postscale_factor": f}):
        got = hvd.reducescatter(mine, op=hvd.Sum, **kw)
        assert torch.equal(got, block), f"float16 reducescatter {kw}: {got.tolist()} != {block.tolist()}"
        got = hvd.grouped_reducescatter([mine, mine], op=hvd.Sum, **kw)
        assert all(torch.equal(g, block) for g in got), f"float16 grouped_reducescatter {kw}: {got}"


def test_reducescatter(rank, size):
    for op, factor in ((hvd.Sum, size), (hvd.Average, 1)):
        t = torch.ones(size * 4, 3, requires_grad=True)
        hvd.reducescatter(t, op=op).backward(torch.ones(4, 3))
        assert torch.equal(t.grad, torch.full((size * 4, 3), float(factor))), f"reducescatter {op} grad {t.grad}"
    expect_raises(RuntimeError, lambda: hvd.reducescatter(torch.ones(size * 4), op=hvd.Adasum), "Adasum")


def test_join(rank, size):
    if rank == 0:
        hvd.join()
        return
    # Named: the joined rank calls none of these, so names from call order would no longer agree afterwards.
    e = expect_raises(RuntimeError, lambda: hvd.allgather(torch.ones(3), name="join.ag"), "rank 0", "joined")
    assert "allgather" in str(e)
    expect_raises(RuntimeError, lambda: hvd.broadcast(torch.ones(3), 1, name="join.bc"), "rank 0", "joined")
    got = hvd.allreduce(torch.ones(3), op=hvd.Sum, name="join.ar")
    assert torch.equal(got, torch.full((3,), float(size - 1))), f"allreduce after join: {got.tolist()}"
    hvd.join()


def test_grouped(rank, size):
    rows = [r + 1 for r in range(size)]
    ts = [torch.full((rows[rank], 2), float(rank)), torch.full((rows[rank],), float(10 + rank))]
    gathered = hvd.grouped_allgather(ts, name="g.ag")
    for k, g in enumerate(gathered):
        want = torch.cat([torch.full((rows[r],) + tuple(ts[k].shape[1:]), float(10 * k + r)) for r in range(size)])
        assert torch.equal(g, want), f"grouped_allgather tensor {k}: {g.tolist()}"
    xs = [(torch.ones(rows[rank], 3) * rank).requires_grad_() for _ in range(3)]
    upstream = torch.cat([torch.full((rows[r], 3), float(r)) for r in range(size)])
    for g in hvd.grouped_allgather(xs):
        g.backward(upstream)
    for x in xs:
        assert torch.equal(x.grad, torch.full_like(x, float(rank))), f"grouped_allgather grad {x.grad.tolist()}"
    base = [torch.arange(size * 2, dtype=torch.float32) * (k + 1) for k in range(2)]
    for op, div in ((hvd.Sum, 1), (hvd.Average, size)):
        handle = hvd.grouped_reducescatter_async([b + rank for b in base], op=op, prescale_factor=2.0,
                                                 postscale_factor=0.5)
        for k, got in enumerate(hvd.synchronize(handle)):
            total = sum(base[k] + r for r in range(size)) / div
            assert torch.allclose(got, total[rank * 2:rank * 2 + 2]), f"grouped_reducescatter {op} {k}: {got}"
    xs = [torch.ones(size * 2, requires_grad=True) for _ in range(2)]
    for y in hvd.grouped_reducescatter(xs, op=hvd.Sum):
        y.backward(torch.ones(2))
    for x in xs:
        assert torch.equal(x.grad, torch.full_like(x, float(size))), f"grouped_reducescatter grad {x.grad}"


def test_sparse(rank, size):
    torch.manual_seed(rank)
    for i in range(3):
        dense = torch.rand(7 + i, 4)
        dense[dense < 0.7] = 0
        result = hvd.sparse_allreduce_async(dense.to_sparse(), name=f"sparse.{i}", op=hvd.Average)()
        assert torch.allclose(result.to_dense(), hvd.allreduce(dense, name=f"dense.{i}"), atol=1e-6), "sparse"
    for sparse_as_dense in (False, True):
        torch.manual_seed(0)
        emb = torch.nn.Embedding(10, 3, sparse=True)
        opt = hvd.DistributedOptimizer(torch.optim.SparseAdam(list(emb.parameters()), lr=0.1),
                                       named_parameters=emb.named_parameters(), sparse_as_dense=sparse_as_dense)
        rows = torch.LongTensor([[1, 2, 4, 5], [4, 3, 2, 9]]) if rank == 0 else torch.LongTensor([[1, 3 + rank]])
        for _ in range(2):
            opt.zero_grad()
            emb(rows).sum().backward()
            opt.step()
        every = hvd.allgather(emb.weight.detach().unsqueeze(0))
        assert all(torch.equal(every[0], w) for w in every), f"embedding differs across ranks ({sparse_as_dense})"


def test_adasum(rank, size):
    tiny = torch.finfo(torch.float32).tiny
    base = torch.arange(1, 65, dtype=torch.float64) % 5 + 1
    scales = [1.0 + 0.5 * r for r in range(size)]
    v = (base * tiny * scales[rank]).to(torch.float32)
    hvd.allreduce_(v, op=hvd.Adasum)
    want = base * tiny * sum(scales) / size
    assert torch.allclose(v.double(), want, rtol=1e-5, atol=0), f"Adasum near FLT_MIN: {(v.double() / want)[:3]}"
    z = torch.zeros(4) if rank == 0 else torch.arange(1.0, 5.0)
    got = hvd.allreduce(z, op=hvd.Adasum)
    assert torch.isfinite(got).all(), f"Adasum with a zero vector: {got.tolist()}"
    if size == 2:
        assert torch.equal(got, torch.arange(1.0, 5.0)), f"Adasum(0, v) = {got.tolist()}"


def test_sync_batch_norm(rank, size):
    batches = [torch.stack([torch.tensor([r, r + 1.0]) * (c + 1) for c in range(4)]) for r in range(size)]
    full = torch.stack(batches)  # (size, 4 features, 2)
    sync_bn, bn = hvd.SyncBatchNorm(num_features=4), torch.nn.BatchNorm1d(num_features=4)
    x1, x2 = full.clone().requires_grad_(), full.clone().requires_grad_()
    out = sync_bn(x1[rank].unsqueeze(0))
    ref = bn(x2)
    assert torch.allclose(out, ref[rank].unsqueeze(0), atol=1e-6), "SyncBatchNorm output"
    assert torch.allclose(sync_bn.running_mean, bn.running_mean, atol=1e-6), "running_mean"
    assert torch.allclose(sync_bn.running_var, bn.running_var, atol=1e-6), "running_var"
    out.sum().backward()
    ref.mean(dim=0).sum().backward()
    assert torch.allclose(hvd.allreduce(sync_bn.weight.grad), bn.weight.grad, atol=1e-5), "weight grad"
    assert torch.allclose(hvd.allreduce(sync_bn.bias.grad), bn.bias.grad, atol=1e-5), "bias grad"
    assert torch.allclose(hvd.allreduce(x1.grad), x2.grad, atol=1e-5), "input grad"
    sync_bn.eval()
    assert torch.allclose(sync_bn(full[rank].unsqueeze(0)), bn.eval()(full)[rank].unsqueeze(0), atol=1e-6), "eval"


def test_optimizer(rank, size):
    model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.Linear(3, 1))
    params = list(model.parameters())
    sgd = lambda: torch.optim.SGD(model.parameters(), lr=0.1)  # noqa: E731
    expect_raises(ValueError, lambda: hvd.DistributedOptimizer(sgd(), groups=[[params[0]], [params[0]]]),
                  "only appear once in groups")
    expect_raises(ValueError, lambda: hvd.DistributedOptimizer(sgd(), groups=[["w"]]), "torch.Tensor")
    expect_raises(ValueError, lambda: hvd.DistributedOptimizer(sgd(), groups=-1), "groups should be")
    for kwargs in ({"groups": 2}, {"groups": [params[:2], params[2:]]}, {}):
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        opt = hvd.DistributedOptimizer(sgd(), **kwargs)  # no named_parameters: named by position
        opt.zero_grad()
        model(torch.ones(2, 4) * (rank + 1)).sum().backward()
        opt.synchronize()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            opt.step()
        assert len(caught) == 1 and "optimizer.step() called without optimizer.skip_synchronize()" in \
            str(caught[0].message), f"synchronize()+step() warnings: {[str(w.message) for w in caught]}"
        every = hvd.allgather(params[0].detach().unsqueeze(0))
        assert all(torch.equal(every[0], w) for w in every), f"parameters differ across ranks ({kwargs})"

    class NoGrad(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = torch.nn.Parameter(torch.tensor([1, 3], dtype=torch.int32), requires_grad=False)
            self.b = torch.nn.Parameter(torch.rand(4))

    m = NoGrad()
    opt = hvd.DistributedOptimizer(torch.optim.SGD(m.parameters(), lr=0.001, momentum=0.9, nesterov=True),
                                   named_parameters=m.named_parameters())
    hvd.broadcast_parameters(m.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)
    assert m.a.grad is None and m.b.grad is not None, "broadcast_optimizer_state: gradients"
    assert torch.equal(hvd.broadcast(m.b.grad, root_rank=0), m.b.grad), "broadcast_optimizer_state: b's gradient"
    assert len(opt.state_dict()["state"]) == 1, f"optimizer state: {opt.state_dict()['state']}"


def main():
    test_before_init()
    hvd.init()
    rank, size = hvd.rank(), hvd.size()
    assert size >= 2, "run under hvdrun -np 2 or more"
    test_basics()
    for test in (test_duplicate_name, test_integer_scaling, test_half_scaling, test_reducescatter, test_join,
                 test_grouped, test_sparse, test_adasum, test_sync_batch_norm, test_optimizer):
        test(rank, size)
        print(f"rank {rank}: {test.__name__} ok", flush=True)
    hvd.shutdown()
    print(f"parity ok rank={rank} size={size}")


if __name__ == "__main__":
    main()
