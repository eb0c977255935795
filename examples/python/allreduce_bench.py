"""hvd-bench's allreduce measurement from Python: the same method (float32 Sum named 'bench', 3 warm-up calls,
iterations planned by rank 0 from the first timing, median per size, the maximum over ranks), so the difference
from `hvd-bench allreduce` is what the Python call adds. Prints '# bytes median_us' lines per mode:
in place (allreduce_, as hvd-bench) and out of place (allreduce, which also allocates the result).

    hvdrun -np 2 python3 examples/python/allreduce_bench.py --sizes 8,4M
"""

import argparse
import statistics
import time

import torch

import hvd.torch as hvd


def parse_size(text):
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(text[:-1]) * units[text[-1]] if text[-1] in units else int(text)


def median_us(call, seconds):
    for _ in range(3):
        call()
    start = time.perf_counter()
    call()
    first = time.perf_counter() - start
    planned = torch.tensor([min(max(seconds / max(first, 1e-7), 5.0), 2000.0)], dtype=torch.float64)
    iters = int(hvd.broadcast_(planned, 0, name="bench.iters").item())
    times = []
    for _ in range(iters):
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1e6)
    mine = torch.tensor([statistics.median(times)], dtype=torch.float64)
    return hvd.allreduce_(mine, op=hvd.Max, name="bench.max").item()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="8,4M", help="bytes per rank, comma-separated (K, M, G suffixes)")
    parser.add_argument("--time", type=float, default=0.5, help="seconds of timing per size (about)")
    args = parser.parse_args()
    torch.set_num_threads(1)
    hvd.init()
    for mode in ("in_place", "out_of_place"):
        if hvd.rank() == 0:
            print(f"# python allreduce float32 np={hvd.size()} mode={mode}\n# bytes median_us")
        for size in (parse_size(s) for s in args.sizes.split(",")):
            t = torch.ones(max(1, size // 4), dtype=torch.float32)
            if mode == "in_place":
                us = median_us(lambda: hvd.allreduce_(t, op=hvd.Sum, name="bench"), args.time)
            else:
                us = median_us(lambda: hvd.allreduce(t, op=hvd.Sum, name="bench"), args.time)
            if hvd.rank() == 0:
                print(f"{size} {us:.2f}", flush=True)
    hvd.shutdown()


if __name__ == "__main__":
    main()
