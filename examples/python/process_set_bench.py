"""Allreduce timing on a process set, for scripts/bench-process-sets.sh. Every rank times float32 Sum allreduces
on its set (median per call, after warm-up; every rank makes as many calls as rank 0 fits in --time), then each
set takes the maximum over its ranks, and the set's first rank prints 'median_us=<us> MBps=<bytes/us>'.

    --pairs: sets {0,1}, {2,3}, ... (np even), both allreducing at once;
    --extra N: N more sets registered (of rank 0 alone), never used, while the global set is timed.
"""

import argparse
import statistics
import time

import torch

import hvd.torch as hvd


def parse_size(text):
    units = {"K": 1 << 10, "M": 1 << 20}
    return int(text[:-1]) * units[text[-1]] if text[-1] in units else int(text)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", action="store_true")
    parser.add_argument("--extra", type=int, default=0)
    parser.add_argument("--bytes", default="8")
    parser.add_argument("--time", type=float, default=2.0)
    args = parser.parse_args()
    torch.set_num_threads(1)
    size = int(__import__("os").environ.get("HOROVOD_SIZE", "1"))
    sets = []
    if args.pairs:
        sets = [hvd.ProcessSet([r, r + 1]) for r in range(0, size, 2)]
    sets += [hvd.ProcessSet([0] + list(range(size - i, size)) if i else [0]) for i in range(args.extra)]
    hvd.init(process_sets=sets)
    mine = next((ps for ps in sets[:size // 2] if args.pairs and ps.included()), hvd.global_process_set)
    t = torch.ones(max(1, parse_size(args.bytes) // 4), dtype=torch.float32)
    hvd.barrier()
    start = time.perf_counter()
    for _ in range(10):
        hvd.allreduce_(t, op=hvd.Sum, name="bench", process_set=mine)
    # Every rank runs the same number of calls (rank 0's estimate of --time): ranks that each watched their own
    # clock would stop after different counts and leave a peer waiting in its last call.
    per_call = (time.perf_counter() - start) / 10
    count = torch.tensor([max(10, int(args.time / per_call))], dtype=torch.int64)
    count = int(hvd.broadcast_(count, root_rank=0, name="bench.count").item())
    times = []
    for _ in range(count):
        start = time.perf_counter()
        hvd.allreduce_(t, op=hvd.Sum, name="bench", process_set=mine)
        times.append((time.perf_counter() - start) * 1e6)
    median = torch.tensor([statistics.median(times)], dtype=torch.float64)
    worst = hvd.allreduce_(median, op=hvd.Max, name="bench.max", process_set=mine).item()
    if mine.rank() == 0:  # one line per set, from its first rank
        nbytes = t.numel() * 4
        print(f"np={hvd.size()} set={mine.ranks} bytes={nbytes} calls={count} median_us={worst:.2f} "
              f"MBps={nbytes / worst:.1f}", flush=True)
    hvd.shutdown()


if __name__ == "__main__":
    main()
