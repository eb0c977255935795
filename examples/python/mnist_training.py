"""Horovod's PyTorch MNIST network and the steps of its training loop, in plain torch: the Fashion-MNIST examples,
the DDP benchmark (whose DDP side must not load hvd) and tests/python/horovod_seed_mnist.py (which trains through
Horovod's package name) share them. A function that needs hvd takes the module it should use.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
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
        x = x.view(-1, 320)
        x = F.relu(self.fc1(x))
        x = F.dropout(x, training=self.training)
        x = self.fc2(x)
        return F.log_softmax(x, dim=1)


def start_rank(hvd, seed, cuda, threads):
    """Horovod's start of a rank: hvd.init(), the seed, the GPU of this local rank (with cuda), intra-op threads."""
    hvd.init()
    torch.manual_seed(seed)
    if cuda:
        torch.cuda.set_device(hvd.local_rank())
        torch.cuda.manual_seed(seed)
    torch.set_num_threads(threads)


def forward_backward(model, optimizer, data, target, cuda):
    """One batch's gradients: the batch on the GPU (with cuda), the old gradients zeroed, the NLL loss's backward
    (where DistributedOptimizer's hooks start the allreduces). Returns the loss."""
    if cuda:
        data, target = data.cuda(), target.cuda()
    optimizer.zero_grad()
    loss = F.nll_loss(model(data), target)
    loss.backward()
    return loss
