"""Prints where this rank may run once hvd.init() has placed it (tests/integration/launcher_placement.sh):
'placement rank=R local_size=L main=CPUS threads=CPUS|CPUS... omp=N torch_threads=N', CPUS as the kernel's
Cpus_allowed_list: the main thread's, then every thread's (distinct, sorted)."""

import os

import torch

import hvd.torch as hvd


def allowed(status_path):
    with open(status_path) as f:
        return next(line.split(":", 1)[1].strip() for line in f if line.startswith("Cpus_allowed_list:"))


def main():
    hvd.init()
    hvd.allreduce(torch.ones(4), name="probe")  # the engine has run a cycle: its thread exists
    threads = sorted({allowed(f"/proc/self/task/{t}/status") for t in os.listdir("/proc/self/task")})
    print(f"placement rank={hvd.rank()} local_size={hvd.local_size()} main={allowed('/proc/self/status')} "
          f"threads={'|'.join(threads)} omp={os.environ.get('OMP_NUM_THREADS', 'unset')} "
          f"torch_threads={torch.get_num_threads()}", flush=True)
    hvd.shutdown()


if __name__ == "__main__":
    main()
