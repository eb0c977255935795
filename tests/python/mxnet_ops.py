"""hvd.mxnet's collectives checked against numpy, run as 2 or 3 ranks (tests/integration/python_mxnet_ops.sh):
each rank's data is a function of its rank, so every rank computes what every op must return from what each
rank contributed. Also: DistributedTrainer leaves identical parameters on every rank, and an op returns before
a slow peer arrives (only reading its output waits). Prints 'mxnet_ops OK rank R' on success."""

import sys
import time

import mxnet as mx
import numpy as np

import hvd.mxnet as hvd

FLOATS = ["float32", "float64", "float16"]
INTS = ["uint8", "int8", "int32", "int64"]


def data(rank, dtype, shape, seed=0):
    """Small values (1..4) so sums and products of 3 ranks are exact in every dtype."""
    n = int(np.prod(shape))
    return ((np.arange(n) * (rank + 2) + seed) % 4 + 1).reshape(shape).astype(dtype)


def close(got, want, what):
    got = got.asnumpy() if isinstance(got, mx.nd.NDArray) else got
    if got.dtype != want.dtype or got.shape != want.shape:
        raise AssertionError(f"{what}: got {got.dtype}{got.shape}, want {want.dtype}{want.shape}")
    if want.dtype == np.float16:
        np.testing.assert_allclose(got.astype(np.float32), want.astype(np.float32), rtol=2e-3, err_msg=what)
    elif want.dtype.kind == "f":
        np.testing.assert_allclose(got, want, rtol=1e-6, err_msg=what)
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


def check_allreduce(r, n):
    shape = (3, 5)
    everyone = lambda dt, seed=0: [data(i, dt, shape, seed) for i in range(n)]  # noqa: E731
    for dt in FLOATS + INTS:
        cases = [(hvd.Sum, np.sum), (hvd.Min, np.min), (hvd.Max, np.max), (hvd.Product, np.prod)]
        if dt in FLOATS:
            cases.append((hvd.Average, np.mean))
        for op, ref in cases:
            want = ref(np.stack(everyone(dt)), axis=0).astype(dt)
            x = mx.nd.array(data(r, dt, shape), dtype=dt)
            out = hvd.allreduce(x, op=op, name=f"ar.{dt}.{op}")
            close(out, want, f"allreduce {dt} {op}")
            close(x, data(r, dt, shape), f"allreduce {dt} {op} left its input")
            hvd.allreduce_(x, op=op, name=f"ar_.{dt}.{op}")
            close(x, want, f"allreduce_ {dt} {op}")
    for dt in FLOATS:
        want = (np.sum(np.stack([d.astype(np.float64) * 0.5 for d in everyone(dt)]), axis=0) * 3.0).astype(dt)
        out = hvd.allreduce(mx.nd.array(data(r, dt, shape), dtype=dt), op=hvd.Sum, prescale_factor=0.5,
                            postscale_factor=3.0, name=f"ar.scaled.{dt}")
        close(out, want, f"allreduce {dt} scaled")
    # Horovod's default is Average; average=False is Sum.
    close(hvd.allreduce(mx.nd.array(data(r, "float32", shape))), np.mean(np.stack(everyone("float32")), axis=0),
          "allreduce default")
    close(hvd.allreduce(mx.nd.array(data(r, "float32", shape)), average=False),
          np.sum(np.stack(everyone("float32")), axis=0), "allreduce average=False")
    tensors = [mx.nd.array(data(r, dt, shape, seed=i), dtype=dt) for i, dt in enumerate(FLOATS + INTS)]
    wants = [np.sum(np.stack(everyone(dt, seed=i)), axis=0).astype(dt) for i, dt in enumerate(FLOATS + INTS)]
    for got, want in zip(hvd.grouped_allreduce(tensors, op=hvd.Sum, name="grouped"), wants):
        close(got, want, f"grouped_allreduce {want.dtype}")
    hvd.grouped_allreduce_(tensors, op=hvd.Sum, name="grouped_")
    for got, want in zip(tensors, wants):
        close(got, want, f"grouped_allreduce_ {want.dtype}")


def check_broadcast(r, n):
    for dt in FLOATS + INTS + ["bool"]:
        for root in range(n):
            want = data(root, dt, (4, 2), seed=root)
            x = mx.nd.array(data(r, dt, (4, 2), seed=r), dtype=dt)
            close(hvd.broadcast(x, root, name=f"bc.{dt}.{root}"), want, f"broadcast {dt} root {root}")
            close(x, data(r, dt, (4, 2), seed=r), f"broadcast {dt} left its input")
            close(hvd.broadcast_(x, root, name=f"bc_.{dt}.{root}"), want, f"broadcast_ {dt} root {root}")
            close(x, want, f"broadcast_ {dt} root {root} in place")


def check_allgather_alltoall_reducescatter(r, n):
    for dt in FLOATS + INTS + ["bool"]:
        rows = lambda i: i + 1  # noqa: E731  (ranks gather different numbers of rows)
        want = np.concatenate([data(i, dt, (rows(i), 3)) for i in range(n)])
        close(hvd.allgather(mx.nd.array(data(r, dt, (rows(r), 3)), dtype=dt), name=f"ag.{dt}"), want,
              f"allgather {dt}")
        # Rank i sends (i + j) % 3 rows to rank j; rows are numbered by sender, so order is checked too.
        sizes = lambda i: [(i + j) % 3 for j in range(n)]  # noqa: E731
        sent = lambda i: data(i, dt, (sum(sizes(i)), 2), seed=10 * i)  # noqa: E731
        parts = []
        for i in range(n):
            start = sum(sizes(i)[:r])
            parts.append(sent(i)[start:start + sizes(i)[r]])
        got, received = hvd.alltoall(mx.nd.array(sent(r), dtype=dt), splits=sizes(r), name=f"a2a.{dt}")
        close(got, np.concatenate(parts), f"alltoall {dt}")
        close(received, np.array([sizes(i)[r] for i in range(n)], dtype=np.int32), f"alltoall {dt} received splits")
        even = hvd.alltoall(mx.nd.array(data(r, dt, (2 * n, 2)), dtype=dt), name=f"a2a.even.{dt}")
        close(even, np.concatenate([data(i, dt, (2 * n, 2))[2 * r:2 * r + 2] for i in range(n)]),
              f"alltoall {dt} equal splits")
        if dt == "bool":
            continue
        rows_total = 2 * n + 1  # does not divide: the first rank gets one more row
        total = np.sum(np.stack([data(i, dt, (rows_total, 2)) for i in range(n)]), axis=0).astype(dt)
        start = 2 * r + min(r, 1)
        mine = 2 + (1 if r < 1 else 0)
        got = hvd.reducescatter(mx.nd.array(data(r, dt, (rows_total, 2)), dtype=dt), op=hvd.Sum, name=f"rs.{dt}")
        close(got, total[start:start + mine], f"reducescatter {dt}")


def check_objects_and_sets(r, n):
    assert hvd.broadcast_object({"from": r}, root_rank=n - 1) == {"from": n - 1}
    assert hvd.allgather_object(r * 10) == [i * 10 for i in range(n)]
    hvd.barrier()


def check_trainer(r, n):
    mx.random.seed(100 + r)  # different initial weights: broadcast_parameters must make them equal
    net = mx.gluon.nn.HybridSequential()
    net.add(mx.gluon.nn.Dense(8, activation="relu"), mx.gluon.nn.Dense(2))
    net.initialize(mx.init.Xavier())  # deferred: the shapes are known on the first forward pass
    params = net.collect_params()
    hvd.broadcast_parameters(params, root_rank=0)
    trainer = hvd.DistributedTrainer(params, "sgd", {"learning_rate": 0.1}, compression=hvd.Compression.fp16,
                                     gradient_predivide_factor=2.0)
    loss_fn = mx.gluon.loss.L2Loss()
    rng = np.random.RandomState(7 + r)  # different data on every rank
    for _ in range(5):
        x = mx.nd.array(rng.rand(4, 6))
        y = mx.nd.array(rng.rand(4, 2))
        with mx.autograd.record():
            loss = loss_fn(net(x), y)
        loss.backward()
        trainer.step(4)
    mine = {k: v.data().asnumpy() for k, v in sorted(params.items())}
    for k, root_value in hvd.broadcast_object(mine, root_rank=0).items():
        np.testing.assert_array_equal(mine[k], root_value, err_msg=f"trainer: {k} differs from rank 0's")
    assert not all(np.array_equal(v, 0) for v in mine.values())


def check_async(r, n):
    x = mx.nd.ones((1000,))
    hvd.barrier()
    if r == 1:
        time.sleep(1.0)
    t0 = time.monotonic()
    hvd.allreduce_(x, op=hvd.Sum, name="async")
    returned = time.monotonic() - t0
    x.wait_to_read()
    waited = time.monotonic() - t0
    close(x, np.full((1000,), n, dtype=np.float32), "async allreduce_")
    if r == 0:
        assert returned < 0.3, f"allreduce_ took {returned:.2f} s to return: it blocked on the slow rank"
        assert waited > 0.5, f"wait_to_read returned after {waited:.2f} s: it did not wait for the slow rank"
        print(f"async: call returned in {returned * 1000:.1f} ms, wait_to_read after {waited:.2f} s", flush=True)


def main():
    hvd.init()
    r, n = hvd.rank(), hvd.size()
    assert n >= 2, "run with hvdrun -np 2 or more"
    for check in (check_allreduce, check_broadcast, check_allgather_alltoall_reducescatter, check_objects_and_sets,
                  check_trainer, check_async):
        check(r, n)
        mx.nd.waitall()
        hvd.mpi_ops.raise_pending_error()
    print(f"mxnet_ops OK rank {r}", flush=True)
    hvd.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
