"""One rank of a training-loop benchmark, hvd or PyTorch DDP on the same workload (scripts/bench-torch-ddp.sh runs
both sides side by side). Synthetic data, so the loop measures compute and gradient exchange, not data loading.

    hvdrun -np 2 /usr/bin/python3 examples/python/bench_torch_ddp.py --side hvd --model mnist
    MASTER_ADDR=127.0.0.1 MASTER_PORT=29500 RANK=r WORLD_SIZE=2 LOCAL_RANK=r \\
        /usr/bin/python3 examples/python/bench_torch_ddp.py --side ddp --model mnist     (one process per rank)

Each side runs with its own defaults: hvd as `hvd.DistributedOptimizer` under hvdrun, DDP over Gloo in the
environment torchrun gives. --threads sets torch's intra-op threads (0: leave torch's default). Rank 0 prints one
line `BENCH side=... samples_per_sec=...` with the threads, CPU affinity and peak memory of every rank.
"""

import argparse
import os
import resource
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

MODELS = ("mnist", "resnet18", "mlp200")


class MnistNet(nn.Module):
    """Horovod's PyTorch MNIST network (as examples/python/pytorch_fashion_mnist.py's Net, which imports hvd.torch:
    the DDP side must not load hvd, or its memory and start would carry hvd's)."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 10, kernel_size=5)
        self.conv2 = nn.Conv2d(10, 20, kernel_size=5)
        self.conv2_drop = nn.Dropout2d()
        self.fc1 = nn.Linear(320, 50)
        self.fc2 = nn.Linear(50, 10)

    def forward(self, x):
        x = F.relu(F.max_pool2d(self.conv1(x), 2))
        x = F.relu(F.max_pool2d(self.conv2_drop(self.conv2(x)), 2))
        x = F.relu(self.fc1(x.view(-1, 320)))
        return F.log_softmax(self.fc2(F.dropout(x, training=self.training)), dim=1)


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
        else:
            import torch.distributed as dist
            dist.init_process_group("gloo")
            self.dist = dist
            self.rank, self.size = dist.get_rank(), dist.get_world_size()

    def wrap(self, model, lr):
        if self.side == "hvd":
            optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
            self.hvd.broadcast_parameters(model.state_dict(), root_rank=0)
            return model, self.hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
        from torch.nn.parallel import DistributedDataParallel
        ddp = DistributedDataParallel(model)
        return ddp, torch.optim.SGD(ddp.parameters(), lr=lr, momentum=0.9)

    def gather_text(self, text):
        """Every rank's text, on every rank (for the rank-0 line)."""
        if self.side == "hvd":
            return self.hvd.allgather_object(text)
        out = [None] * self.size
        self.dist.all_gather_object(out, text)
        return out

    def finish(self):
        if self.side == "hvd":
            self.hvd.shutdown()
        else:
            self.dist.destroy_process_group()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--side", choices=("hvd", "ddp"), required=True)
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

    def step():
        optimizer.zero_grad()
        loss_of(args.model, model(data), target).backward()
        optimizer.step()

    for _ in range(args.warmup):
        step()
    start = time.perf_counter()
    for _ in range(args.steps):
        step()
    elapsed = time.perf_counter() - start
    samples_per_sec = args.steps * args.batch_size * side.size / elapsed
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    cpus = sorted(os.sched_getaffinity(0))
    mine = f"r{side.rank}:threads={torch.get_num_threads()},cpus={','.join(map(str, cpus))},peak_mib={peak_mib:.0f}"
    everyone = side.gather_text(mine)
    if side.rank == 0:
        print(f"BENCH side={args.side} model={args.model} np={side.size} batch={args.batch_size} "
              f"samples_per_sec={samples_per_sec:.1f} step_ms={1000 * elapsed / args.steps:.2f} "
              f"ranks={';'.join(everyone)}", flush=True)
    side.finish()


if __name__ == "__main__":
    main()
