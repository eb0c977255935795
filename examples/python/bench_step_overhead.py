"""What hvd's DistributedOptimizer costs a training step, measured where the machine's speed cannot skew it.

Run under hvdrun, e.g. `hvdrun -np 2 /usr/bin/python3 examples/python/bench_step_overhead.py --model mlp200`. Each
rank holds two copies of the model: one trained by plain local SGD, one by hvd.DistributedOptimizer. The two
alternate in blocks of steps in the same process, so a slow phase of a shared machine (seen here as 1.5x slower
steps for tens of seconds) hits both alike, where separate runs compared side by side would blame it on one. Rank 0
prints one line: 'OVERHEAD model=... plain_ms=... hvd_ms=... ratio=...' with the median over blocks of plain time /
hvd time (1.0: the exchange costs nothing), its quartiles, and the backward and wait times of both.

--ddp adds a third copy trained by DDP over Gloo in the same processes (one host: its store on 127.0.0.1), in the
same rotation, and the line gains ddp_ms and ddp_ratio, the median over rotations of DDP's block time / hvd's
(above 1.0: hvd is faster). It is the side-by-side of scripts/bench-torch-ddp.sh with the machine's phases taken
out; both sides run in one process each rank, at the same thread count (hvdrun's OMP_NUM_THREADS=1 is torchrun's).
"""

import argparse
import datetime
import socket
import statistics
import time

import torch
import torch.distributed
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel

import hvd.torch as hvd
from bench_torch_ddp import MODELS, exit_past_gloo_teardown, loss_of, model_and_input


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=MODELS, default="mlp200")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--blocks", type=int, default=30)
    parser.add_argument("--block-steps", type=int, default=10)
    parser.add_argument("--threads", type=int, default=1, help="torch intra-op threads; 0 leaves torch's default")
    parser.add_argument("--ddp", action="store_true", help="also time DDP over Gloo in the same rotation")
    args = parser.parse_args()
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    hvd.init()
    torch.manual_seed(42)
    plain_model, data, target = model_and_input(args.model, args.batch_size)
    hvd_model, _, _ = model_and_input(args.model, args.batch_size)
    plain_opt = torch.optim.SGD(plain_model.parameters(), lr=0.01, momentum=0.9)
    hvd_opt = hvd.DistributedOptimizer(torch.optim.SGD(hvd_model.parameters(), lr=0.01, momentum=0.9),
                                       named_parameters=hvd_model.named_parameters())
    hvd.broadcast_parameters(hvd_model.state_dict(), root_rank=0)
    if args.ddp:
        ddp_model, ddp_opt = start_ddp(hvd, model_and_input(args.model, args.batch_size)[0])

    def step(model, optimizer, parts, distributed):
        optimizer.zero_grad()
        loss = loss_of(args.model, model(data), target)
        t0 = time.perf_counter()
        loss.backward()
        t1 = time.perf_counter()
        if distributed:
            optimizer.synchronize()
        t2 = time.perf_counter()
        if distributed:
            with optimizer.skip_synchronize():
                optimizer.step()
        else:
            optimizer.step()
        parts["backward"] += t1 - t0
        parts["wait"] += t2 - t1

    def block(model, optimizer, distributed, steps):
        """Milliseconds per step, backward and wait per step."""
        hvd.barrier()  # the ranks start each block together
        parts = {"backward": 0.0, "wait": 0.0}
        start = time.perf_counter()
        for _ in range(steps):
            step(model, optimizer, parts, distributed)
        per_step = 1000 / steps
        return (time.perf_counter() - start) * per_step, parts["backward"] * per_step, parts["wait"] * per_step

    block(plain_model, plain_opt, False, 10)  # warm-up: allocations, the response cache, DDP's buckets
    block(hvd_model, hvd_opt, True, 10)
    if args.ddp:
        block(ddp_model, ddp_opt, False, 10)
    plain, dist, ddp = [], [], []
    for _ in range(args.blocks):
        plain.append(block(plain_model, plain_opt, False, args.block_steps))
        dist.append(block(hvd_model, hvd_opt, True, args.block_steps))
        if args.ddp:
            ddp.append(block(ddp_model, ddp_opt, False, args.block_steps))
    ratios = sorted(p[0] / d[0] for p, d in zip(plain, dist))
    med = statistics.median
    line = (f"OVERHEAD model={args.model} np={hvd.size()} plain_ms={med(p[0] for p in plain):.2f} "
            f"hvd_ms={med(d[0] for d in dist):.2f} ratio={med(ratios):.3f} q1={ratios[len(ratios) // 4]:.3f} "
            f"q3={ratios[3 * len(ratios) // 4]:.3f} plain_backward_ms={med(p[1] for p in plain):.2f} "
            f"hvd_backward_ms={med(d[1] for d in dist):.2f} hvd_wait_ms={med(d[2] for d in dist):.2f}")
    if args.ddp:
        versus = sorted(b[0] / d[0] for b, d in zip(ddp, dist))
        line += (f" ddp_ms={med(b[0] for b in ddp):.2f} ddp_ratio={med(versus):.3f} "
                 f"ddp_q1={versus[len(versus) // 4]:.3f} ddp_q3={versus[3 * len(versus) // 4]:.3f}")
    if hvd.rank() == 0:
        print(line, flush=True)
    hvd.shutdown()
    if args.ddp:
        exit_past_gloo_teardown(torch.distributed)


def start_ddp(hvd, model):
    """DDP over Gloo beside hvd in this process: rank 0 picks the store's port and hvd tells the others."""
    port = 0
    if hvd.rank() == 0:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
    port = hvd.broadcast_object(port, root_rank=0)
    torch.distributed.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=hvd.rank(),
                                         world_size=hvd.size(), timeout=datetime.timedelta(seconds=120))
    ddp_model = DistributedDataParallel(model)
    return ddp_model, torch.optim.SGD(ddp_model.parameters(), lr=0.01, momentum=0.9)


if __name__ == "__main__":
    main()
