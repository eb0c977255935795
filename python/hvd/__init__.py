"""hvd: Horovod's way of distributed training, on hvd's own engine (libhvd).

PyTorch users: ``import hvd.torch as hvd`` in place of ``import horovod.torch as hvd``, then run the script
with ``hvdrun -np N python3 train.py``.
"""

__version__ = "0.1.0"
