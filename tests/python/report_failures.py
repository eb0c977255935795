"""Failures for the root-cause report's tests (report_python_*.sh), run under hvdrun; argv[1] picks one:
  raise R   rank R raises RuntimeError("boom on rank R") while the other ranks wait in allreduce 'wait'
  two       rank 2 raises first but takes 4 s to exit (ignoring SIGTERM, then exiting 7); rank 1 raises 1 s after
            it and exits at once; rank 0 waits in allreduce 'wait'. The earlier failure (rank 2) is the root cause.
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


def main():
    print(f"pid={os.getpid()}", flush=True)
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
