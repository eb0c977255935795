"""horovod.mxnet is hvd.mxnet: the same objects, and its submodules under Horovod's names."""

import sys

import hvd.mxnet as _hvd_mxnet
from hvd.mxnet import *  # noqa: F401,F403  (the whole public API, as horovod.mxnet has it)
from hvd.mxnet import __all__  # noqa: F401

for _name in ("mpi_ops", "compression", "functions"):
    sys.modules[f"{__name__}.{_name}"] = getattr(_hvd_mxnet, _name)
