"""Horovod's PyTorch MNIST example on Fashion-MNIST, with hvd: the script a Horovod user already has, with
`import hvd.torch as hvd` in place of `import horovod.torch as hvd`.

    hvdrun -np 2 python3 examples/python/pytorch_fashion_mnist.py --epochs 1

Every rank trains on its shard (DistributedSampler); DistributedOptimizer averages the gradients while backward
runs; rank 0 prints progress, the test loss and accuracy averaged over ranks, and writes the checkpoint. Data:
Debian's dataset-fashion-mnist (IDX files, gzip). Momentum defaults to 0.9, not Horovod's 0.5 (tuned for MNIST):
about 78% after one epoch at np=2 instead of 74%. Extra flags for tests and benchmarks as in the C++ example:
--max-steps, --checksum, --benchmark. The network and the steps of the loop that do not depend on hvd are in
mnist_training.py beside it (the DDP benchmark and Horovod's own script in tests/ share them).
"""

import argparse
import gzip
import hashlib
import os
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F
import torch.optim as optim
import torch.utils.data.distributed

import hvd.torch as hvd
from mnist_training import Net, forward_backward, start_rank

MEAN, STD = 0.2860, 0.3530  # Fashion-MNIST training pixels, in [0, 1]

def training_arguments(description):
    """A parser with the flags both Fashion-MNIST examples (this one and the elastic one) take, alike."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--batch-size", type=int, default=64, help="input batch size for training, per rank")
    parser.add_argument("--test-batch-size", type=int, default=1000, help="input batch size for testing")
    parser.add_argument("--epochs", type=int, default=10, help="number of epochs to train")
    parser.add_argument("--lr", type=float, default=0.01, help="learning rate (times the number of ranks)")
    parser.add_argument("--momentum", type=float, default=0.9, help="SGD momentum")
    parser.add_argument("--seed", type=int, default=42, help="random seed")
    parser.add_argument("--log-interval", type=int, default=10, help="batches between progress lines")
    parser.add_argument("--data-dir", default="/usr/share/datasets/fashion-mnist",
                        help="directory with the Fashion-MNIST IDX files (.gz or plain)")
    parser.add_argument("--threads", type=int, default=1, help="intra-op threads per rank")
    parser.add_argument("--checksum", action="store_true",
                        help="every rank prints a hash of its parameters at the end")
    return parser


parser = training_arguments("Horovod's PyTorch MNIST example on Fashion-MNIST, with hvd")
parser.add_argument("--no-cuda", action="store_true", default=False, help="train on the CPU even with CUDA")
parser.add_argument("--fp16-allreduce", action="store_true", default=False, help="fp16 compression for allreduce")
parser.add_argument("--use-adasum", action="store_true", default=False, help="reduce with Adasum")
parser.add_argument("--gradient-predivide-factor", type=float, default=1.0,
                    help="divide gradients by this before the allreduce and by size/factor after")
parser.add_argument("--checkpoint", default="", help="rank 0 saves the model's state_dict here after each epoch")
parser.add_argument("--max-steps", type=int, default=-1, help="stop after this many training steps (-1: no limit)")
parser.add_argument("--benchmark", action="store_true", help="skip testing; rank 0 prints a BENCH line")


def read_idx(path, dims):
    """An IDX file: big-endian magic 0x08 0x<dims>, the dimension sizes, then unsigned bytes."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        raw = f.read()
    magic = int.from_bytes(raw[0:4], "big")
    if magic != 0x800 + dims:
        sys.exit(f"fashion-mnist: {path} has magic number {magic}, expected {0x800 + dims}")
    shape = [int.from_bytes(raw[4 + 4 * i:8 + 4 * i], "big") for i in range(dims)]
    return np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * dims).reshape(shape)


def fashion_mnist(data_dir, train):
    prefix = "train" if train else "t10k"
    paths = []
    for stem in (f"{prefix}-images-idx3-ubyte", f"{prefix}-labels-idx1-ubyte"):
        candidates = [os.path.join(data_dir, stem + ".gz"), os.path.join(data_dir, stem)]
        found = [p for p in candidates if os.path.exists(p)]
        if not found:
            sys.exit(f"fashion-mnist: neither {candidates[0]} nor {candidates[1]} exists; install "
                     "dataset-fashion-mnist or pass --data-dir")
        paths.append(found[0])
    images = torch.from_numpy(read_idx(paths[0], 3).copy()).float().div_(255).sub_(MEAN).div_(STD).unsqueeze(1)
    labels = torch.from_numpy(read_idx(paths[1], 1).astype(np.int64))
    return torch.utils.data.TensorDataset(images, labels)


def batches(dataset, sampler, batch_size):
    # A TensorDataset indexed by a whole batch of indices at once: one gather per batch, not one per sample.
    batch_sampler = torch.utils.data.BatchSampler(sampler, batch_size, drop_last=False)
    return torch.utils.data.DataLoader(dataset, sampler=batch_sampler, batch_size=None)


def metric_average(val, name):
    return hvd.allreduce(torch.tensor(val), name=name).item()


def parameter_checksum(model):
    digest = hashlib.sha256()
    for p in model.parameters():
        digest.update(p.detach().cpu().contiguous().numpy().tobytes())
    return digest.hexdigest()[:16]


def main():
    args = parser.parse_args()
    args.cuda = not args.no_cuda and torch.cuda.is_available()

    # Horovod: initialize library, pin GPU to local rank, limit # of CPU threads to be used per worker.
    start_rank(hvd, args.seed, args.cuda, args.threads)

    train_dataset = fashion_mnist(args.data_dir, train=True)
    test_dataset = fashion_mnist(args.data_dir, train=False)
    # Horovod: use DistributedSampler to partition the data among ranks.
    train_sampler = torch.utils.data.distributed.DistributedSampler(
        train_dataset, num_replicas=hvd.size(), rank=hvd.rank(), seed=args.seed)
    test_sampler = torch.utils.data.distributed.DistributedSampler(
        test_dataset, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    train_loader = batches(train_dataset, train_sampler, args.batch_size)
    test_loader = batches(test_dataset, test_sampler, args.test_batch_size)

    model = Net()
    # Horovod: scale the learning rate by the number of ranks (not with Adasum, which adapts itself).
    lr_scaler = 1 if args.use_adasum else hvd.size()
    if args.cuda:
        model.cuda()
    optimizer = optim.SGD(model.parameters(), lr=args.lr * lr_scaler, momentum=args.momentum)

    # Horovod: broadcast parameters & optimizer state.
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    # Horovod: (optional) compression algorithm.
    compression = hvd.Compression.fp16 if args.fp16_allreduce else hvd.Compression.none
    # Horovod: wrap optimizer with DistributedOptimizer.
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                         compression=compression,
                                         op=hvd.Adasum if args.use_adasum else hvd.Average,
                                         gradient_predivide_factor=args.gradient_predivide_factor)

    step, timed_steps, step_s, wait_s = 0, 0, 0.0, 0.0
    train_start = time.perf_counter()
    for epoch in range(1, args.epochs + 1):
        if step == args.max_steps:
            break
        model.train()
        # Horovod: set epoch to sampler for shuffling.
        train_sampler.set_epoch(epoch)
        t0 = time.perf_counter()
        for batch_idx, (data, target) in enumerate(train_loader):
            loss = forward_backward(model, optimizer, data, target, args.cuda)
            t1 = time.perf_counter()
            optimizer.synchronize()
            t2 = time.perf_counter()
            with optimizer.skip_synchronize():
                optimizer.step()
            step += 1
            t3 = time.perf_counter()
            if step > 10:  # the first steps warm up allocators and the runtime's caches
                timed_steps, step_s, wait_s = timed_steps + 1, step_s + (t3 - t0), wait_s + (t2 - t1)
            if batch_idx % args.log_interval == 0 and hvd.rank() == 0:
                # Horovod: use train_sampler to determine the number of examples in this worker's partition.
                print("Train Epoch: {} [{}/{} ({:.0f}%)]\tLoss: {:.6f}".format(
                    epoch, batch_idx * len(data), len(train_sampler), 100. * batch_idx / len(train_loader),
                    loss.item()))
            if step == args.max_steps:
                break
            t0 = time.perf_counter()
        if not args.benchmark:
            test(model, test_loader, test_sampler, args)
            if hvd.rank() == 0:
                print("Epoch {} done: {:.1f} s of training so far".format(epoch, time.perf_counter() - train_start))
        if hvd.rank() == 0 and args.checkpoint:
            torch.save(model.state_dict(), args.checkpoint)

    if args.benchmark and hvd.rank() == 0:
        per_step = step_s / max(1, timed_steps)
        print(f"BENCH np={hvd.size()} threads={args.threads} batch={args.batch_size} steps={timed_steps} "
              f"samples_per_sec={hvd.size() * args.batch_size / per_step:.1f} step_ms={1000 * per_step:.3f} "
              f"wait_ms={1000 * wait_s / max(1, timed_steps):.3f} wait_share={wait_s / max(1e-12, step_s):.4f}")
    if args.checksum:
        print(f"PARAM_CHECKSUM rank={hvd.rank()} steps={step} {parameter_checksum(model)}")
    hvd.shutdown()


def test(model, test_loader, test_sampler, args):
    model.eval()
    test_loss, test_accuracy = 0., 0.
    with torch.no_grad():
        for data, target in test_loader:
            if args.cuda:
                data, target = data.cuda(), target.cuda()
            output = model(data)
            # sum up batch loss
            test_loss += F.nll_loss(output, target, reduction="sum").item()
            # get the index of the max log-probability
            pred = output.argmax(1, keepdim=True)
            test_accuracy += pred.eq(target.view_as(pred)).float().sum().item()
    # Horovod: use test_sampler to determine the number of examples in this worker's partition.
    test_loss /= len(test_sampler)
    test_accuracy /= len(test_sampler)
    # Horovod: average metric values across workers.
    test_loss = metric_average(test_loss, "avg_loss")
    test_accuracy = metric_average(test_accuracy, "avg_accuracy")
    if hvd.rank() == 0:
        print("\nTest set: Average loss: {:.4f}, Accuracy: {:.2f}%\n".format(test_loss, 100. * test_accuracy))


if __name__ == "__main__":
    main()
