"""Every op and dtype of hvd.torch against values computed on one rank (run under hvdrun at any -np).

Each rank's input is a pure function of (rank, dtype, op, index), so every rank can compute what all ranks sent and
the expected result. Covers: allreduce (Sum, Average, Min, Max, Product; out of place, in place, async, scale
factors), grouped allreduce, allgather with a ragged first dimension, broadcast from every root, alltoall with and
without splits, reducescatter, barrier, join, broadcast_object, allgather_object and the basics. Prints
`conformance ok` on success; any mismatch raises (non-zero exit).
"""

import torch

import hvd.torch as hvd

DTYPES = [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.float16, torch.bfloat16,
          torch.float32, torch.float64, torch.bool]
FLOATS = {torch.float16: 2e-3, torch.bfloat16: 1.6e-2, torch.float32: 1e-5, torch.float64: 1e-12}
N = 37  # odd: exercises uneven splits


def data(rank, dtype, op, n=N):
    i = torch.arange(n, dtype=torch.int64)
    if dtype == torch.bool:
        return ((i + rank) % 5 != 0) if op == hvd.Product else ((i + rank) % 3 == 0)
    if op == hvd.Product:  # small factors keep products exact in every dtype
        k = (i + rank) % 4
        v = torch.where(k == 0, torch.full_like(k, 2), torch.ones_like(k)) if dtype == torch.uint8 else \
            torch.where(k == 0, -torch.ones_like(k), torch.where(k == 1, torch.full_like(k, 2), torch.ones_like(k)))
    else:
        v = (i * 7 + rank * 3) % 11
        v = v if dtype == torch.uint8 else v - 5
    return v.to(dtype)


def expected_allreduce(dtype, op, size, pre=1.0, post=1.0):
    stack = torch.stack([data(r, dtype, op).to(torch.float64) * pre for r in range(size)])
    if op in (hvd.Sum, hvd.Average):
        acc = stack.sum(0)
    elif op == hvd.Min:
        acc = stack.min(0).values
    elif op == hvd.Max:
        acc = stack.max(0).values
    else:
        acc = stack.prod(0)
    if dtype == torch.bool:
        return acc != 0
    if op == hvd.Average:
        acc = acc / size if dtype in FLOATS else torch.trunc(acc / size)  # integers: Horovod truncates
    return acc * post


def check(what, got, want, dtype):
    if got.dtype != dtype:
        raise AssertionError(f"{what}: dtype {got.dtype}, expected {dtype}")
    if tuple(got.shape) != tuple(want.shape):
        raise AssertionError(f"{what}: shape {tuple(got.shape)}, expected {tuple(want.shape)}")
    g, w = got.to(torch.float64), want.to(torch.float64)
    tol = FLOATS.get(dtype, 0.0)
    bad = (g - w).abs() > tol * torch.clamp(w.abs(), min=1.0)
    if bool(bad.any()):
        i = int(bad.nonzero()[0][0]) if bad.dim() else 0
        raise AssertionError(f"{what}: element {i} is {g.flatten()[i].item()}, expected {w.flatten()[i].item()}")


def test_basics(rank, size):
    assert hvd.is_initialized()
    assert 0 <= rank < size and hvd.local_size() * hvd.cross_size() >= 1
    assert hvd.is_homogeneous() is True  # one host
    assert hvd.gloo_built() and hvd.gloo_enabled() != hvd.mpi_enabled()
    print(f"rank {rank}: CPU backend {'mpi' if hvd.mpi_enabled() else 'builtin'}")
    assert hvd.Compression.none is not hvd.Compression.fp16


def test_allreduce(rank, size):
    for dtype in DTYPES:
        ops = [hvd.Sum, hvd.Min, hvd.Max, hvd.Product] + ([] if dtype == torch.bool else [hvd.Average])
        for op in ops:
            what = f"allreduce {dtype} {op}"
            want = expected_allreduce(dtype, op, size)
            x = data(rank, dtype, op)
            before = x.clone()
            check(what, hvd.allreduce(x, op=op, name=f"ar.{dtype}.{op}"), want, dtype)
            assert torch.equal(x, before), what + ": input changed"
            y = data(rank, dtype, op)
            check(what + " in place", hvd.allreduce_(y, op=op), want, dtype)
            check(what + " in place (tensor)", y, want, dtype)
            handle = hvd.allreduce_async(data(rank, dtype, op), op=op)
            check(what + " async", hvd.synchronize(handle), want, dtype)
            assert hvd.poll(handle), what + ": poll() false after synchronize()"
        if dtype in FLOATS:
            got = hvd.allreduce(data(rank, dtype, hvd.Sum), op=hvd.Average, prescale_factor=0.5, postscale_factor=3.0)
            check(f"allreduce {dtype} scaled", got, expected_allreduce(dtype, hvd.Average, size, 0.5, 3.0), dtype)
    # average= (deprecated) still works
    check("allreduce average=False", hvd.allreduce(data(rank, torch.float32, hvd.Sum), average=False),
          expected_allreduce(torch.float32, hvd.Sum, size), torch.float32)
    check("allreduce fp16 compression", hvd.allreduce(data(rank, torch.float32, hvd.Sum), op=hvd.Sum,
                                                      compression=hvd.Compression.fp16),
          expected_allreduce(torch.float32, hvd.Sum, size), torch.float32)


def test_grouped(rank, size):
    tensors = [data(rank, dtype, hvd.Sum) for dtype in (torch.float32, torch.float32, torch.int64)]
    want = [expected_allreduce(dtype, hvd.Sum, size) for dtype in (torch.float32, torch.float32, torch.int64)]
    for i, got in enumerate(hvd.grouped_allreduce(tensors, op=hvd.Sum, name="group")):
        check(f"grouped_allreduce tensor {i}", got, want[i], tensors[i].dtype)
    handle = hvd.grouped_allreduce_async_(tensors, op=hvd.Sum)
    results = hvd.synchronize(handle)
    for i, t in enumerate(tensors):
        check(f"grouped_allreduce_ tensor {i}", t, want[i], t.dtype)
        assert results[i] is t or torch.equal(results[i], t)


def test_allgather(rank, size):
    for dtype in DTYPES:
        rows = [r + 1 for r in range(size)]  # ragged: rank r sends r+1 rows
        mine = data(rank, dtype, hvd.Sum, rows[rank] * 3).reshape(rows[rank], 3)
        want = torch.cat([data(r, dtype, hvd.Sum, rows[r] * 3).reshape(rows[r], 3) for r in range(size)])
        check(f"allgather {dtype}", hvd.allgather(mine, name=f"ag.{dtype}"), want, dtype)
        check(f"allgather_async {dtype}", hvd.synchronize(hvd.allgather_async(mine)), want, dtype)


def test_broadcast(rank, size):
    for dtype in DTYPES:
        for root in range(size):
            x = data(rank, dtype, hvd.Sum)
            want = data(root, dtype, hvd.Sum)
            check(f"broadcast {dtype} root {root}", hvd.broadcast(x, root_rank=root), want, dtype)
            assert torch.equal(x, data(rank, dtype, hvd.Sum)), "broadcast changed its input"
            hvd.broadcast_(x, root, name=f"bc.{dtype}.{root}")
            check(f"broadcast_ {dtype} root {root}", x, want, dtype)
            y = data(rank, dtype, hvd.Sum)
            hvd.synchronize(hvd.broadcast_async_(y, root))
            check(f"broadcast_async_ {dtype} root {root}", y, want, dtype)


def test_alltoall(rank, size):
    for dtype in DTYPES:
        # Without splits: equal parts of 2 rows each.
        x = data(rank, dtype, hvd.Sum, 2 * size * 2).reshape(2 * size, 2)
        want = torch.cat([data(r, dtype, hvd.Sum, 2 * size * 2).reshape(2 * size, 2)[2 * rank:2 * rank + 2]
                          for r in range(size)])
        check(f"alltoall {dtype}", hvd.alltoall(x), want, dtype)
        # With splits: rank r sends (r + d) % 3 rows to rank d.
        def splits_of(r):
            return [(r + d) % 3 for d in range(size)]
        def rows_of(r):
            return data(r, dtype, hvd.Sum, sum(splits_of(r)) * 2).reshape(sum(splits_of(r)), 2)
        out, received = hvd.alltoall(rows_of(rank), splits=torch.tensor(splits_of(rank), dtype=torch.int32))
        parts = []
        for r in range(size):
            start = sum(splits_of(r)[:rank])
            parts.append(rows_of(r)[start:start + splits_of(r)[rank]])
        check(f"alltoall {dtype} splits", out, torch.cat(parts), dtype)
        assert received.tolist() == [splits_of(r)[rank] for r in range(size)], f"received splits {received.tolist()}"


def test_reducescatter(rank, size):
    for dtype in (torch.int32, torch.int64, torch.float16, torch.bfloat16, torch.float32, torch.float64):
        for op in (hvd.Sum, hvd.Average):
            if op == hvd.Average and dtype not in FLOATS:
                continue
            n = 2 * size + 1  # uneven: the first rank gets a row more
            x = data(rank, dtype, hvd.Sum, n * 2).reshape(n, 2)
            full = torch.stack([data(r, dtype, hvd.Sum, n * 2).reshape(n, 2).to(torch.float64)
                                for r in range(size)]).sum(0)
            if op == hvd.Average:
                full = full / size
            counts = [n // size + (1 if r < n % size else 0) for r in range(size)]
            start = sum(counts[:rank])
            check(f"reducescatter {dtype} {op}", hvd.reducescatter(x, op=op), full[start:start + counts[rank]], dtype)
    x = data(rank, torch.float32, hvd.Sum, 4 * size).reshape(2 * size, 2)
    full = torch.stack([data(r, torch.float32, hvd.Sum, 4 * size).reshape(2 * size, 2) for r in range(size)]).sum(0)
    got = hvd.synchronize(hvd.reducescatter_async(x, op=hvd.Sum, prescale_factor=2.0, postscale_factor=0.5))
    check("reducescatter scaled", got, full[2 * rank:2 * rank + 2], torch.float32)


def test_objects_barrier_join(rank, size):
    obj = {"from": 0, "list": [1, 2, 3], "text": "héllo"}
    got = hvd.broadcast_object(obj if rank == 0 else None, root_rank=0)
    assert got == obj, f"broadcast_object gave {got!r}"
    gathered = hvd.allgather_object({"rank": rank, "pad": "x" * rank * 100})
    assert [g["rank"] for g in gathered] == list(range(size)), f"allgather_object gave {gathered!r}"
    hvd.barrier()
    # Ranks above 0 run out of data first; rank 0 keeps reducing, getting zeros from the joined ranks.
    if rank == 0:
        for _ in range(3):
            got = hvd.allreduce(torch.ones(4), op=hvd.Sum, name="join.step")
            assert torch.equal(got, torch.ones(4)), f"allreduce with joined ranks gave {got.tolist()}"
    last = hvd.join()
    assert last == 0, f"join returned {last}, expected 0 (rank 0 joins last)"


def main():
    hvd.init()
    rank, size = hvd.rank(), hvd.size()
    for test in (test_basics, test_allreduce, test_grouped, test_allgather, test_broadcast, test_alltoall,
                 test_reducescatter, test_objects_barrier_join):
        test(rank, size)
    hvd.shutdown()
    print(f"conformance ok rank={rank} size={size}")


if __name__ == "__main__":
    main()
