"""Failures for the root-cause report's tests (report_python_*.sh), run under hvdrun; argv[1] picks one:
  raise R   rank R raises RuntimeError("boom on rank R") while the other ranks wait in allreduce 'wait'
  two       rank 2 raises first but takes 4 s to exit (ignoring SIGTERM, then exiting 7); rank 1 raises 1 s after
            it and exits at once; rank 0 waits in allreduce 'wait'. The earlier failure (rank 2) is the root cause.
  set-mismatch  in process set [0, 2] (np 3), rank 2 allreduces 'wait' with shape [8] where rank 0 sends [16],
            uncaught; rank 1, outside the set, waits in a global allreduce 'outside'.
  set-lost  in process set [0, 2] (np 3), rank 2 exits 5 while rank 0 waits for it in allreduce 'wait' on the set
            (ignoring the teardown's SIGTERM, so that the op fails first); rank 1, outside the set, waits in a global
            allreduce 'outside'.
Every rank prints "pid=<pid>" first.
"""

import atexit
import os
import signal
import sys
import time

import torch

import hvd.torch as hvd


def load_batch(rank):
    raise RuntimeError(f"boom on rank {rank}")


def late_exit(code):
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # hvdrun's teardown reaches this rank while it is still exiting
    time.sleep(4)  # rank 1 raises 1 s after this rank, and has 3 s to exit first even on a loaded machine
    os._exit(code)


def in_set(mode):
    """The set modes: ranks 0 and 2 meet in their set, rank 1 waits outside it."""
    pair = hvd.ProcessSet([0, 2])
    hvd.init(process_sets=[pair])
    rank = hvd.rank()
    if rank == 1:
        hvd.allreduce(torch.ones(4), name="outside")
        return
    for _ in range(3):
        hvd.allreduce(torch.ones(4), name="warmup", process_set=pair)
    if mode == "set-lost" and rank == 2:
        os._exit(5)
    if mode == "set-lost":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # rank 0 outlives the teardown until its op fails on rank 2
    shape = 8 if mode == "set-mismatch" and rank == 2 else 16
    hvd.allreduce(torch.ones(shape), name="wait", process_set=pair)


def main():
    print(f"pid={os.getpid()}", flush=True)
    if sys.argv[1].startswith("set-"):
        return in_set(sys.argv[1])
    hvd.init()
    rank = hvd.rank()
    for _ in range(3):
        hvd.allreduce(torch.ones(4), name="warmup")
    mode = sys.argv[1]
    culprit = int(sys.argv[2]) if mode == "raise" else None
    if mode == "raise" and rank == culprit:
        load_batch(rank)
    if mode == "two" and rank == 2:
        atexit.register(late_exit, 7)  # runs before hvd's own atexit shutdown (last registered, first run)
        load_batch(rank)
    if mode == "two" and rank == 1:
        time.sleep(1)
        load_batch(rank)
    hvd.allreduce(torch.ones(4), name="wait")
    print(f"rank {rank}: 'wait' completed", flush=True)


if __name__ == "__main__":
    main()
