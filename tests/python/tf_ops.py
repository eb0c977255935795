"""hvd.tensorflow's ops against references computed here from what every rank contributed, at any np: every op,
dtype and reduce op eagerly; the same ops inside tf.function (whose graph must hold hvd's op types and no Python
op) and in a tf.compat.v1 graph; the gradient of every op; process sets; IndexedSlices. Each check prints one
"ok NAME" line per rank (tests/integration/tensorflow_ops.sh counts them); a wrong value raises, naming it.
Usage: tf_ops.py MODULE  (hvd.tensorflow, or horovod.tensorflow under hvdrun --horovod-compat)."""

import importlib
import sys

import numpy as np
import tensorflow as tf

hvd = importlib.import_module(sys.argv[1])
hvd.init(process_sets="dynamic")
rank, size = hvd.rank(), hvd.size()
FLOATS = [tf.float16, tf.bfloat16, tf.float32, tf.float64]
INTS = [tf.uint8, tf.int8, tf.int16, tf.int32, tf.int64]


def ok(name):
    print(f"ok {name}", flush=True)


def data(r, shape, dtype, salt=0):
    """Rank r's deterministic tensor: small values every dtype holds exactly."""
    n = int(np.prod(shape)) if shape else 1
    values = (np.arange(n, dtype=np.int64) * 7 + r * 3 + salt) % 5 + (1 if dtype.is_floating else 0)
    return tf.constant(values.reshape(shape), dtype=tf.float64 if dtype == tf.bfloat16 else dtype.as_numpy_dtype) \
        if dtype != tf.bfloat16 else tf.cast(tf.constant(values.reshape(shape), tf.float64), tf.bfloat16)


def as_np(t):
    return tf.cast(t, tf.float64).numpy() if t.dtype in (tf.bfloat16, tf.float16) else t.numpy()


def expect(name, got, want, tol=0.0):
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    if got.shape != want.shape or not np.allclose(got, want, rtol=tol, atol=tol):
        raise AssertionError(f"{name} on rank {rank}: got {got.tolist()} want {want.tolist()}")


def everyone(shape, dtype, salt=0):
    return [as_np(data(r, shape, dtype, salt)) for r in range(size)]


def check_allreduce():
    ops = {hvd.Sum: lambda xs: np.sum(xs, 0), hvd.Average: lambda xs: np.sum(xs, 0) / size,
           hvd.Min: lambda xs: np.min(xs, 0), hvd.Max: lambda xs: np.max(xs, 0),
           hvd.Product: lambda xs: np.prod(xs, 0)}
    for dtype in FLOATS + INTS:
        for op, ref in ops.items():
            if dtype.is_integer and dtype.is_unsigned and op == hvd.Product and size > 3:
                continue
            got = hvd.allreduce(data(rank, [3, 2], dtype), op=op)
            want = ref(everyone([3, 2], dtype))
            if dtype.is_integer and op == hvd.Average:
                want = np.trunc(np.sum(everyone([3, 2], dtype), 0) / size)
            tol = 1e-2 if dtype in (tf.float16, tf.bfloat16) else (1e-6 if dtype.is_floating else 0)
            expect(f"allreduce {dtype.name} {op}", as_np(got), want, tol)
    x = data(rank, [4], tf.float32)
    got = hvd.allreduce(x, op=hvd.Sum, prescale_factor=0.5, postscale_factor=3.0)
    expect("allreduce scale factors", got.numpy(), np.sum(everyone([4], tf.float32), 0) * 1.5)
    got = hvd.allreduce(x, op=hvd.Average, compression=hvd.Compression.fp16)
    expect("allreduce fp16 compression", got.numpy(), np.mean(everyone([4], tf.float32), 0), 1e-2)
    if got.dtype != tf.float32:
        raise AssertionError(f"fp16 compression returned {got.dtype}, not float32")
    ok("allreduce")


def check_grouped_and_gather():
    xs = [data(rank, [2, 3], tf.float32, s) for s in range(3)]
    for got, s in zip(hvd.grouped_allreduce(xs, op=hvd.Sum), range(3)):
        expect("grouped_allreduce", got.numpy(), np.sum(everyone([2, 3], tf.float32, s), 0))
    for dtype in FLOATS + INTS + [tf.bool]:
        rows = rank + 1  # dimension 0 differs per rank
        x = tf.cast(data(rank, [rows, 2], tf.int32), dtype)
        got = hvd.allgather(x)
        want = np.concatenate([as_np(tf.cast(data(r, [r + 1, 2], tf.int32), dtype)) for r in range(size)])
        expect(f"allgather {dtype.name}", as_np(got), want)
    got = hvd.grouped_allgather([data(rank, [1, 2], tf.float64), data(rank, [rank + 2], tf.float64, 1)])
    expect("grouped_allgather 0", got[0].numpy(), np.concatenate(everyone([1, 2], tf.float64)))
    expect("grouped_allgather 1",
           got[1].numpy(), np.concatenate([as_np(data(r, [r + 2], tf.float64, 1)) for r in range(size)]))
    ok("grouped_allreduce_allgather")


def check_broadcast_alltoall_reducescatter():
    for dtype in FLOATS + INTS + [tf.bool]:
        for root in range(size):
            x = tf.cast(data(rank, [3], tf.int32), dtype)
            expect(f"broadcast {dtype.name} root {root}", as_np(hvd.broadcast(x, root)),
                   as_np(tf.cast(data(root, [3], tf.int32), dtype)))
    # Rank r sends r+1+d rows to rank d; each row holds (sender, receiver).
    splits = [rank + 1 + d for d in range(size)]
    rows = np.concatenate([[[rank, d]] * n for d, n in enumerate(splits)]).astype(np.int32)
    out, received = hvd.alltoall(tf.constant(rows), splits=splits)
    want = np.concatenate([[[s, rank]] * (s + 1 + rank) for s in range(size)])
    expect("alltoall rows", out.numpy(), want)
    expect("alltoall received splits", received.numpy(), [s + 1 + rank for s in range(size)])
    equal = hvd.alltoall(tf.constant(np.full([size * 2, 1], rank, np.float32)))
    expect("alltoall equal splits", equal.numpy(), np.repeat(np.arange(size), 2).reshape(-1, 1))
    n = size * 2 + 1  # does not divide: the first ranks get one row more
    x = data(rank, [n, 2], tf.float32)
    got = hvd.reducescatter(x, op=hvd.Sum)
    total = np.sum(everyone([n, 2], tf.float32), 0)
    counts = [n // size + (1 if r < n % size else 0) for r in range(size)]
    start = sum(counts[:rank])
    expect("reducescatter Sum", got.numpy(), total[start:start + counts[rank]])
    got = hvd.reducescatter(x, op=hvd.Average)
    expect("reducescatter Average", got.numpy(), total[start:start + counts[rank]] / size, 1e-6)
    got = hvd.grouped_reducescatter([x, x * 2], op=hvd.Sum)
    expect("grouped_reducescatter", got[1].numpy(), 2 * total[start:start + counts[rank]])
    ok("broadcast_alltoall_reducescatter")


def all_ops(x):
    """Every op once, for tf.function and the v1 graph."""
    s = hvd.allreduce(x, op=hvd.Sum)
    g = hvd.allgather(x)
    b = hvd.broadcast(x, 0)
    a = hvd.alltoall(tf.tile(x, [size]))
    r = hvd.reducescatter(tf.tile(x, [size]), op=hvd.Sum)
    gr = hvd.grouped_allreduce([x, x * 2], op=hvd.Sum)
    return s, g, b, a, r, gr[1]


def check_references(outs, label):
    x_all = everyone([2], tf.float32)
    expect(f"{label} allreduce", outs[0], np.sum(x_all, 0))
    expect(f"{label} allgather", outs[1], np.concatenate(x_all))
    expect(f"{label} broadcast", outs[2], x_all[0])
    expect(f"{label} alltoall", outs[3], np.concatenate(x_all))
    expect(f"{label} reducescatter", outs[4], np.sum(x_all, 0))
    expect(f"{label} grouped", outs[5], 2 * np.sum(x_all, 0))


def check_tf_function():
    fn = tf.function(all_ops)
    x = data(rank, [2], tf.float32)
    for _ in range(2):  # the second call reuses the graph: same node names, same negotiation
        check_references([o.numpy() for o in fn(x)], "tf.function")
    graph = fn.get_concrete_function(x).graph
    types = {op.type for op in graph.get_operations()}
    python_ops = types & {"PyFunc", "EagerPyFunc", "PyFuncStateless", "NumpyFunction"}
    wanted = {"HvdAllreduce", "HvdAllgather", "HvdBroadcast", "HvdAlltoall", "HvdReducescatter",
              "HvdGroupedAllreduce"}
    if python_ops or not wanted <= types:
        raise AssertionError(f"tf.function graph: python ops {python_ops}, missing {wanted - types}")
    ok("tf_function")


def check_v1_graph():
    feed = data(rank, [2], tf.float32).numpy()
    with tf.Graph().as_default():
        x = tf.compat.v1.placeholder(tf.float32, [2])
        outs = all_ops(x)
        with tf.compat.v1.Session() as session:
            results = [session.run(outs, {x: feed}) for _ in range(2)]
    for result in results:  # checked eagerly, outside the graph
        check_references(result, "v1 graph")
    ok("v1_graph")


def check_gradients():
    x = tf.Variable(data(rank, [size * 2, 2], tf.float64))
    up = tf.constant(np.arange(size * 2 * 2, dtype=np.float64).reshape(size * 2, 2) + rank)
    ups = [np.arange(size * 2 * 2, dtype=np.float64).reshape(size * 2, 2) + r for r in range(size)]
    with tf.GradientTape(persistent=True) as tape:
        s = hvd.allreduce(x, op=hvd.Sum)
        avg = hvd.allreduce(x, op=hvd.Average)
        b = hvd.broadcast(x, 0)
        r = hvd.reducescatter(x, op=hvd.Sum)
        a = hvd.alltoall(x)
        g = hvd.allgather(x)
        loss_s, loss_avg, loss_b = tf.reduce_sum(s * up), tf.reduce_sum(avg * up), tf.reduce_sum(b * up)
        rows = x.shape[0] // size
        loss_r = tf.reduce_sum(r * up[:rows])
        loss_a = tf.reduce_sum(a * up)
        loss_g = tf.reduce_sum(g * tf.tile(up, [size, 1]))
    expect("grad allreduce Sum", tape.gradient(loss_s, x).numpy(), np.sum(ups, 0))
    expect("grad allreduce Average", tape.gradient(loss_avg, x).numpy(), np.sum(ups, 0) / size)
    expect("grad broadcast", tape.gradient(loss_b, x).numpy(), np.mean(ups, 0) if rank == 0 else np.zeros_like(ups[0]))
    # reducescatter Sum: every rank's upstream rows, gathered, times the set's size (Horovod's gradient).
    expect("grad reducescatter", tape.gradient(loss_r, x).numpy(),
           np.concatenate([u[:rows] for u in ups]) * size)
    # alltoall: rank r's block d came from rank d's block r, so the gradient is the upstream sent back.
    expect("grad alltoall", tape.gradient(loss_a, x).numpy(),
           np.concatenate([ups[d][rank * 2:(rank + 1) * 2] for d in range(size)]))
    # allgather: the averaged upstream, this rank's rows.
    expect("grad allgather", tape.gradient(loss_g, x).numpy(), np.mean([np.tile(u, [size, 1]) for u in ups], 0)
           [rank * x.shape[0]:(rank + 1) * x.shape[0]])
    ok("gradients")


def check_process_sets():
    evens = hvd.add_process_set([r for r in range(size) if r % 2 == 0])
    if evens.included():
        got = hvd.allreduce(data(rank, [2], tf.float32), op=hvd.Sum, process_set=evens)
        expect("process set allreduce", got.numpy(),
               np.sum([as_np(data(r, [2], tf.float32)) for r in range(0, size, 2)], 0))
        got = hvd.allgather(tf.constant([rank]), process_set=evens)
        expect("process set allgather", got.numpy(), list(range(0, size, 2)))
    hvd.barrier()
    hvd.remove_process_set(evens)
    ok("process_sets")


def check_indexed_slices():
    table = tf.Variable(tf.zeros([size + 2, 3], tf.float32))
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.gather(table, [rank, rank + 1]) * (rank + 1))
    grad = tape.gradient(loss, table)
    if not isinstance(grad, tf.IndexedSlices):
        raise AssertionError(f"expected IndexedSlices, got {type(grad)}")
    reduced = hvd.allreduce(grad, op=hvd.Sum)
    dense = tf.convert_to_tensor(reduced).numpy()
    want = np.zeros([size + 2, 3])
    for r in range(size):
        want[r] += r + 1
        want[r + 1] += r + 1
    expect("IndexedSlices allreduce Sum", dense, want)
    ok("indexed_slices")


check_allreduce()
check_grouped_and_gather()
check_broadcast_alltoall_reducescatter()
check_tf_function()
check_v1_graph()
check_gradients()
check_process_sets()
check_indexed_slices()
if int(hvd.join()) not in range(size):
    raise AssertionError("join returned no rank")
ok("done")
