"""SyncBatchNorm, as horovod.torch's: batch normalization whose batch statistics are those of every rank's batch
together, on CPU tensors as on GPU ones (Horovod's is GPU-only).

In training the mean and then the variance are allreduced (summed) with the element count; both allreduces are
differentiable, so the gradient each rank gets is that of the sum of every rank's loss, as with one big batch.
Running statistics are updated from the global ones (the unbiased variance). In eval mode, or with one rank, it is
plain batch norm.
"""

import torch
import torch.nn.functional as F
from torch.nn.modules.batchnorm import _BatchNorm

from hvd.torch.basics import Sum, size
from hvd.torch.mpi_ops import allreduce


class SyncBatchNorm(_BatchNorm):
    """torch.nn.BatchNorm1d/2d/3d over the whole job's batch (any input of 2 dimensions or more)."""

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats)

    def _check_input_dim(self, input):
        if input.dim() < 2:
            raise ValueError(f"hvd.torch.SyncBatchNorm: expected an input of 2 or more dimensions (batch, "
                             f"{self.num_features} features, ...), got {input.dim()}")

    def _momentum(self):
        if not (self.training and self.track_running_stats):
            return 0.0
        self.num_batches_tracked.add_(1)
        return 1.0 / float(self.num_batches_tracked) if self.momentum is None else self.momentum

    def forward(self, input):
        self._check_input_dim(input)
        if input.shape[1] != self.num_features:
            raise ValueError(f"hvd.torch.SyncBatchNorm: input has {input.shape[1]} features in dimension 1, the "
                             f"module {self.num_features}")
        use_batch_stats = self.training or not self.track_running_stats
        if not use_batch_stats or size() == 1:
            return F.batch_norm(input, self.running_mean, self.running_var, self.weight, self.bias,
                                use_batch_stats, self._momentum(), self.eps)
        return self._synchronized(input)

    def _synchronized(self, input):
        momentum = self._momentum()
        dims = [0] + list(range(2, input.dim()))
        shape = [1, self.num_features] + [1] * (input.dim() - 2)
        count = torch.tensor([float(input.numel() // self.num_features)], dtype=input.dtype, device=input.device)
        # Mean first, then the squared deviations from it: exact where E[x^2] - E[x]^2 would cancel.
        totals = allreduce(torch.cat([input.sum(dims), count]), op=Sum)
        n = totals[-1]
        mean = totals[:-1] / n
        centered = input - mean.view(shape)
        var = allreduce((centered * centered).sum(dims), op=Sum) / n
        if self.track_running_stats and self.running_mean is not None:
            with torch.no_grad():
                self.running_mean.mul_(1 - momentum).add_(mean.detach(), alpha=momentum)
                unbiased = var.detach() * (n / torch.clamp(n - 1, min=1))
                self.running_var.mul_(1 - momentum).add_(unbiased, alpha=momentum)
        out = centered / torch.sqrt(var + self.eps).view(shape)
        if self.affine:
            out = out * self.weight.view(shape) + self.bias.view(shape)
        return out
