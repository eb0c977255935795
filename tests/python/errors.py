"""Errors are Python exceptions carrying libhvd's message, and the job goes on (run under hvdrun -np 2 or more).

- A shape or dtype mismatch across ranks raises HorovodInternalError on every rank, naming the tensor and ranks;
  the script catches it and the next collective works.
- Local misuse (non-contiguous or complex tensor, a tensor on an unsupported device, a bad op) raises at once.
- synchronize() gives the GIL back while it waits: another Python thread keeps running.
- A CUDA tensor where there is no GPU fails with a clear message.
- start_timeline/stop_timeline work: every rank writes its own trace of the op between them.
Prints `errors ok` on success.
"""

import json
import os
import tempfile
import threading
import time

import torch

import hvd.torch as hvd


def expect(exc_type, fn, *needles):
    try:
        fn()
    except exc_type as e:
        message = str(e)
        for needle in needles:
            if needle not in message:
                raise AssertionError(f"{exc_type.__name__} message lacks {needle!r}: {message}")
        return message
    raise AssertionError(f"expected {exc_type.__name__} containing {needles}, nothing was raised")


def check_timeline(rank, size):
    """start_timeline/stop_timeline work from Python on every rank: each rank writes its own strict-JSON trace (rank
    0 the path, rank r <stem>.<r><ext>) as its process "rank r", with the op that ran between them, and nothing
    after stop_timeline. Rank 0 reads every rank's file."""
    path = os.path.join(tempfile.gettempdir(), f"hvd_python_timeline_{os.getppid()}.json")
    stem, ext = os.path.splitext(path)
    files = [path] + [f"{stem}.{r}{ext}" for r in range(1, size)]
    hvd.start_timeline(path)
    hvd.allreduce(torch.ones(2), name="timeline.op")
    # An op's handle completes before the engine writes its event: the barrier, a later cycle, gets timeline.op's
    # events into the file before it closes (barrier events are not checked).
    hvd.barrier()
    hvd.stop_timeline()
    hvd.allreduce(torch.ones(2), name="timeline.after_stop")
    hvd.barrier()
    if rank == 0:
        for r, file in enumerate(files):
            with open(file) as f:
                events = json.load(f)
            assert all(e.get("pid") == r for e in events), f"{file}: an event of another pid than rank {r}"
            assert {"name": f"rank {r}"} in [e["args"] for e in events if e["name"] == "process_name"], \
                f"{file}: the process is not named 'rank {r}'"
            ops = [e["args"]["tensors"] for e in events if e["name"] == "allreduce"]
            assert ops == [["timeline.op"]], f"{file}: allreduce events {ops}, expected timeline.op alone"
    hvd.barrier()  # every rank's file was read before any is removed
    os.remove(files[rank])


def main():
    hvd.init()
    rank, size = hvd.rank(), hvd.size()
    assert size >= 2, "run with -np 2 or more"
    assert issubclass(hvd.HorovodInternalError, RuntimeError)

    # Shapes differ on the last rank: every rank raises, naming the tensor and a rank.
    shape = (5,) if rank == size - 1 else (4,)
    message = expect(hvd.HorovodInternalError, lambda: hvd.allreduce(torch.ones(shape), name="grad/fc1.weight"),
                     "grad/fc1.weight", "rank")
    print(f"rank {rank} caught: {message}")
    dtype = torch.float64 if rank == 0 else torch.float32
    expect(hvd.HorovodInternalError, lambda: hvd.allreduce(torch.ones(3, dtype=dtype), name="mixed"), "mixed",
           "float64", "float32")
    expect(hvd.HorovodInternalError, lambda: hvd.synchronize(hvd.allgather_async(torch.ones(2, 3 + rank),
                                                                                 name="ragged.cols")), "ragged.cols")
    # ... and the job goes on.
    got = hvd.allreduce(torch.ones(4), op=hvd.Sum, name="after")
    assert torch.equal(got, torch.full((4,), float(size))), f"allreduce after the errors gave {got.tolist()}"

    expect(hvd.HorovodInternalError, lambda: hvd.allreduce(torch.ones(4, 4).t()[0]), "not contiguous")
    expect(hvd.HorovodInternalError, lambda: hvd.allreduce(torch.ones(2, dtype=torch.complex64)), "ComplexFloat")
    expect(hvd.HorovodInternalError, lambda: hvd.allreduce(torch.ones(2, device="meta")), "meta")
    expect(ValueError, lambda: hvd.allreduce(torch.ones(2), op="sum"), "op='sum'")
    expect(ValueError, lambda: hvd.reducescatter(torch.ones(2), op=hvd.Max), "reducescatter")
    check_timeline(rank, size)
    expect(ValueError, lambda: hvd.allreduce(torch.ones(1), process_set=hvd.ProcessSet([0])), "is not registered")

    # The GIL is free while synchronize() waits for the last rank, which comes 1.5 s late.
    ticks = []
    stop = threading.Event()

    def count():
        while not stop.is_set():
            ticks.append(1)
            time.sleep(0.01)

    thread = threading.Thread(target=count)
    thread.start()
    if rank == size - 1:
        time.sleep(1.5)
    handle = hvd.allreduce_async(torch.ones(2), name="late")
    before = len(ticks)
    hvd.synchronize(handle)
    during = len(ticks) - before
    stop.set()
    thread.join()
    if rank != size - 1 and during < 20:
        raise AssertionError(f"another thread ran only {during} times while synchronize() waited 1.5 s: is the "
                             "GIL held while waiting?")

    # A CUDA tensor where there is none: the request fails with a message that says so.
    if not torch.cuda.is_available():
        expect(Exception, lambda: hvd.allreduce(torch.ones(2, device="cuda")), "CUDA")

    # DistributedOptimizer misuse.
    model = torch.nn.Linear(3, 2)
    sgd = torch.optim.SGD(model.parameters(), lr=0.1)
    expect(ValueError, lambda: hvd.DistributedOptimizer(sgd, named_parameters=[("w", model.weight),
                                                                               ("w", model.bias)]), "duplicate", "'w'")
    expect(ValueError, lambda: hvd.DistributedOptimizer(sgd, named_parameters=[("w", model.weight)]),
           "no name")
    opt = hvd.DistributedOptimizer(sgd, named_parameters=model.named_parameters())
    model(torch.ones(1, 3)).sum().backward()
    expect(hvd.HorovodInternalError, opt.zero_grad, "zero_grad", "in flight")
    opt.step()
    opt.zero_grad()

    hvd.shutdown()
    print(f"errors ok rank={rank} size={size}")


if __name__ == "__main__":
    main()
