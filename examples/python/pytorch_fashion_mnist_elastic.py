"""The Fashion-MNIST example as an elastic job (Horovod's pytorch_mnist_elastic.py, with hvd):

    hvdrun -np 2 --min-np 1 --max-np 4 -H localhost:4 /usr/bin/python3 examples/python/pytorch_fashion_mnist_elastic.py

Workers may die or join while it trains: hvd.elastic.run restores the last commit (every --batches-per-commit
batches), the job is re-formed in process and training goes on. ElasticSampler shards what is left of the epoch
over the workers there are now, so every sample is still seen once per epoch; a reset callback keeps the learning
rate at lr x size. It also runs unchanged as a static job (hvdrun -np 2 ...). The data, test and the flags both
take are those of pytorch_fashion_mnist.py, the network and its step those of mnist_training.py; --checksum prints a
hash of each rank's parameters at the end and after each (re)start's sync ("elastic synced ..."), and rank 0's at
each commit ("elastic commit ..."), so a test can see that a reset went back to the committed parameters.
"""

import os
import sys
import time

import torch
import torch.optim as optim

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mnist_training import Net, forward_backward  # noqa: E402
from pytorch_fashion_mnist import (batches, fashion_mnist, parameter_checksum, test,  # noqa: E402
                                   training_arguments)

import hvd.torch as hvd  # noqa: E402

parser = training_arguments("The Fashion-MNIST example as an elastic hvd job")
parser.add_argument("--batches-per-commit", type=int, default=10, help="batches between two commits of the state")
parser.add_argument("--max-steps", type=int, default=-1, help="stop after this many committed steps (-1: no limit)")
parser.add_argument("--step-sleep", type=float, default=0.0, help="seconds to sleep per step (tests: a slower job)")


def main():
    args = parser.parse_args()
    args.cuda = False
    hvd.init()
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)

    train_dataset = fashion_mnist(args.data_dir, train=True)
    test_dataset = fashion_mnist(args.data_dir, train=False)
    train_sampler = hvd.elastic.ElasticSampler(train_dataset, shuffle=True, seed=args.seed)

    model = Net()
    optimizer = optim.SGD(model.parameters(), lr=args.lr * hvd.size(), momentum=args.momentum)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())

    def on_reset():
        # Horovod's rule after every change of size: the learning rate follows the number of ranks.
        for group in optimizer.param_groups:
            group["lr"] = args.lr * hvd.size()

    state = hvd.elastic.TorchState(model, optimizer, train_sampler=train_sampler, epoch=1, batch=0, steps=0)
    state.register_reset_callbacks([on_reset])

    def commit():
        if args.checksum and hvd.rank() == 0:
            print(f"elastic commit steps={state.steps} checksum={parameter_checksum(model)}", flush=True)
        state.commit()

    @hvd.elastic.run
    def train(state):
        print(f"elastic start rank={hvd.rank()} size={hvd.size()} epoch={state.epoch} steps={state.steps} "
              f"pid={os.getpid()}", flush=True)
        if args.checksum:
            print(f"elastic synced rank={hvd.rank()} size={hvd.size()} steps={state.steps} "
                  f"checksum={parameter_checksum(model)}", flush=True)
        while state.epoch <= args.epochs and state.steps != args.max_steps:
            model.train()
            if state.batch == 0:
                train_sampler.set_epoch(state.epoch)
            # The sampler holds what is left of the epoch, sharded over the ranks there are now.
            for data, target in batches(train_dataset, train_sampler, args.batch_size):
                loss = forward_backward(model, optimizer, data, target, args.cuda)
                optimizer.step()
                if args.step_sleep:
                    time.sleep(args.step_sleep)
                train_sampler.record_batch(state.batch, args.batch_size)
                state.batch += 1
                state.steps += 1
                if state.batch % args.log_interval == 0 and hvd.rank() == 0:
                    print(f"Train Epoch: {state.epoch} batch {state.batch} size {hvd.size()}\tLoss: "
                          f"{loss.item():.6f}", flush=True)
                if state.steps % args.batches_per_commit == 0 or state.steps == args.max_steps:
                    commit()
                if state.steps == args.max_steps:
                    return
            if args.max_steps < 0:
                # The test set is sharded over the ranks there are at the end of the epoch.
                test_sampler = torch.utils.data.distributed.DistributedSampler(
                    test_dataset, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
                test(model, batches(test_dataset, test_sampler, args.test_batch_size), test_sampler, args)
            state.epoch += 1
            state.batch = 0
            commit()

    train(state)
    if args.checksum:
        print(f"PARAM_CHECKSUM rank={hvd.rank()} size={hvd.size()} steps={state.steps} {parameter_checksum(model)}",
              flush=True)
    hvd.shutdown()


if __name__ == "__main__":
    main()
