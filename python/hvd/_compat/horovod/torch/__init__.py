"""horovod.torch is hvd.torch: the same objects, and its submodules under Horovod's names."""

import sys

import hvd.torch as _hvd_torch
from hvd.torch import *  # noqa: F401,F403  (the whole public API, as horovod.torch has it)
from hvd.torch import __all__  # noqa: F401

for _name in ("mpi_ops", "compression", "functions", "optimizer", "elastic"):
    sys.modules[f"{__name__}.{_name}"] = getattr(_hvd_torch, _name)
# horovod.torch.elastic's submodules, for scripts that import from them.
for _name in ("state", "sampler"):
    sys.modules[f"{__name__}.elastic.{_name}"] = getattr(_hvd_torch.elastic, _name)
