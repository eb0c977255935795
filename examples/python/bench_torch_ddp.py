"""One rank of a training-loop benchmark, hvd or PyTorch DDP on the same workload (scripts/bench-torch-ddp.sh runs
both sides side by side). Synthetic data, so the loop measures compute and gradient exchange, not data loading.

    hvdrun -np 2 /usr/bin/python3 examples/python/bench_torch_ddp.py --side hvd --model mnist
    MASTER_ADDR=127.0.0.1 MASTER_PORT=29500 RANK=r WORLD_SIZE=2 LOCAL_RANK=r \\
        /usr/bin/python3 examples/python/bench_torch_ddp.py --side ddp --model mnist     (one process per rank)

    RANK=r WORLD_SIZE=2 /usr/bin/python3 examples/python/bench_torch_ddp.py --side local --model mnist
        (the ceiling: each rank trains alone, nothing exchanged; the samples/s no exchange can beat)

Each side runs with its own defaults: hvd as `hvd.DistributedOptimizer` under hvdrun, DDP over Gloo in the
environment torchrun gives. --threads sets torch's intra-op threads (0: leave torch's default). Rank 0 prints one
line `BENCH side=... samples_per_sec=...` with the threads, CPU affinity and peak memory of every rank.

How much of backward the allreduces hide (hvd): each timed step is timed in parts, backward (from its call to its
return: hvd's hooks launch each gradient's allreduce inside it) and the wait (from backward's return to
synchronize()'s). A rank's wait also holds its peers' lateness (a slower backward elsewhere); the rank whose backward
ends last waits for nothing but the communication its backward did not hide, so wait_ms is the smallest rank's.
After the timed steps, the same gradients are allreduced with nothing to overlap (all launched at once, then waited
for: comm_ms), so hidden = 1 - wait_ms / comm_ms is the share of that communication time backward covered. DDP's own allreduces run inside its backward, so its wait is 0
and its backward_ms includes them.
"""

import argparse
import datetime
import os
import resource
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

# Horovod's PyTorch MNIST network, from a module that does not import hvd: the DDP side must not load hvd, or its
# memory and start would carry hvd's.
from mnist_training import Net as MnistNet

MODELS = ("mnist", "resnet18", "mlp200")


def many_small_gradients():
    """About 200 parameter tensors of a few KiB each: the collectives, not compute, set the pace."""
    layers = []
    for _ in range(100):
        layers += [nn.Linear(32, 32), nn.ReLU()]
    return nn.Sequential(nn.Flatten(), nn.Linear(28 * 28, 32), *layers, nn.Linear(32, 10), nn.LogSoftmax(dim=1))


def model_and_input(name, batch):
    """The model, one synthetic input batch and its targets."""
    if name == "resnet18":
        import torchvision  # Debian's python3-torchvision (scripts/install-deps.sh bench)
        return torchvision.models.resnet18(num_classes=10), torch.randn(batch, 3, 224, 224), torch.randint(0, 10, (batch,))
    model = MnistNet() if name == "mnist" else many_small_gradients()
    return model, torch.randn(batch, 1, 28, 28), torch.randint(0, 10, (batch,))


def loss_of(name, output, target):
    return F.cross_entropy(output, target) if name == "resnet18" else F.nll_loss(output, target)


class Side:
    """What differs between hvd and DDP: start, wrap, exchange of the rank-0 numbers at the end."""

    def __init__(self, side):
        self.side = side
        if side == "hvd":
            import hvd.torch as hvd
            hvd.init()
            self.hvd = hvd
            self.rank, self.size = hvd.rank(), hvd.size()
        elif side == "local":
            self.rank, self.size = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
        else:
            import torch.distributed as dist
            # Bounded: a rank whose peer never comes fails here instead of waiting Gloo's default 30 minutes.
            dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=120))
            self.dist = dist
            self.rank, self.size = dist.get_rank(), dist.get_world_size()

    def wrap(self, model, lr):
        if self.side == "hvd":
            optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
            self.hvd.broadcast_parameters(model.state_dict(), root_rank=0)
            return model, self.hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
        if self.side == "local":
            return model, torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
        from torch.nn.parallel import DistributedDataParallel
        ddp = DistributedDataParallel(model)
        return ddp, torch.optim.SGD(ddp.parameters(), lr=lr, momentum=0.9)

    def gather_text(self, text):
        """Every rank's text, on every rank (for the rank-0 line; a local rank knows only its own)."""
        if self.side == "local":
            return [text]
        if self.side == "hvd":
            return self.hvd.allgather_object(text)
        out = [None] * self.size
        self.dist.all_gather_object(out, text)
        return out

    def synchronize(self, optimizer):
        """Waits for the gradients' allreduces still in flight after backward (DDP's are done by then)."""
        if self.side == "hvd":
            optimizer.synchronize()

    def step(self, optimizer):
        if self.side == "hvd":
            with optimizer.skip_synchronize():
                optimizer.step()
        else:
            optimizer.step()

    def comm_alone_ms(self, model, repeats):
        """hvd: milliseconds to allreduce every gradient with nothing to overlap (all launched, then waited for)."""
        if self.side != "hvd":
            return 0.0
        grads = [(name, p.grad) for name, p in model.named_parameters() if p.grad is not None]
        times = []
        for _ in range(repeats + 2):
            start = time.perf_counter()
            handles = [self.hvd.allreduce_async_(g, name=f"alone/{name}") for name, g in grads]
            for h in handles:
                self.hvd.synchronize(h)
            times.append(time.perf_counter() - start)
        return 1000 * sorted(times[2:])[len(times[2:]) // 2]

    def finish(self):
        if self.side == "hvd":
            self.hvd.shutdown()
            return
        if self.side == "local":
            return
        self.dist.barrier()
        exit_past_gloo_teardown(self.dist)


def exit_past_gloo_teardown(dist):
    """Destroys the process group and exits at once, everything printed.

    torch 1.13 can deadlock at exit: the DDP reducer's last reference destroys ProcessGroupGloo, which joins its
    worker threads holding the GIL while one of them frees a Python-owned tensor and waits for the GIL
    (pytorch/pytorch#56297; seen here as a rank that never exits after printing its result). So leave without
    running the destructors.
    """
    dist.destroy_process_group()
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    os._exit(0)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--side", choices=("hvd", "ddp", "local"), required=True)
    parser.add_argument("--model", choices=MODELS, default="mnist")
    parser.add_argument("--batch-size", type=int, default=64, help="per rank")
    parser.add_argument("--steps", type=int, default=100, help="timed steps, after --warmup")
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--threads", type=int, default=1, help="torch intra-op threads; 0 leaves torch's default")
    args = parser.parse_args()
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    torch.manual_seed(42)
    side = Side(args.side)
    model, data, target = model_and_input(args.model, args.batch_size)
    model, optimizer = side.wrap(model, lr=0.01 * side.size)
    model.train()

    parts = {"backward": 0.0, "wait": 0.0}

    def step():
        optimizer.zero_grad()
        loss = loss_of(args.model, model(data), target)
        t0 = time.perf_counter()
        loss.backward()
        t1 = time.perf_counter()
        side.synchronize(optimizer)
        t2 = time.perf_counter()
        side.step(optimizer)
        parts["backward"] += t1 - t0
        parts["wait"] += t2 - t1

    for _ in range(args.warmup):
        step()
    parts.update(backward=0.0, wait=0.0)
    start = time.perf_counter()
    for _ in range(args.steps):
        step()
    elapsed = time.perf_counter() - start
    backward_ms, my_wait_ms = (1000 * parts[k] / args.steps for k in ("backward", "wait"))
    wait_ms = min(float(w) for w in side.gather_text(f"{my_wait_ms}"))
    comm_ms = side.comm_alone_ms(model.module if args.side == "ddp" else model, repeats=min(args.steps, 20))
    hidden = max(0.0, 1.0 - wait_ms / comm_ms) if comm_ms > 0 else 0.0
    samples_per_sec = args.steps * args.batch_size * side.size / elapsed
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    cpus = sorted(os.sched_getaffinity(0))
    mine = f"r{side.rank}:threads={torch.get_num_threads()},cpus={','.join(map(str, cpus))},peak_mib={peak_mib:.0f}"
    everyone = side.gather_text(mine)
    if side.rank == 0:
        print(f"BENCH side={args.side} model={args.model} np={side.size} batch={args.batch_size} "
              f"samples_per_sec={samples_per_sec:.1f} step_ms={1000 * elapsed / args.steps:.2f} "
              f"backward_ms={backward_ms:.2f} wait_ms={wait_ms:.3f} comm_ms={comm_ms:.3f} hidden={hidden:.2f} "
              f"ranks={';'.join(everyone)}", flush=True)
    side.finish()


if __name__ == "__main__":
    main()
