"""horovod.keras is hvd.keras (hvd.tensorflow.keras), with its submodules."""

import sys

import hvd.keras as _hvd_keras
from hvd.keras import *  # noqa: F401,F403
from hvd.keras import (DistributedOptimizer, PartialDistributedOptimizer, allgather, allreduce,  # noqa: F401
                       broadcast, broadcast_global_variables, callbacks, elastic, load_model, reducescatter)

for _name in ("callbacks", "elastic"):
    sys.modules[f"{__name__}.{_name}"] = getattr(_hvd_keras, _name)
