"""horovod.keras on hvd: the same module as hvd.tensorflow.keras (Horovod's standalone-Keras module ran Keras 2 on
TensorFlow, which is what tf.keras is here under TF_USE_LEGACY_KERAS=1)."""

import sys

import hvd.tensorflow.keras as _keras
from hvd.tensorflow.keras import *  # noqa: F401,F403
from hvd.tensorflow.keras import (DistributedOptimizer, PartialDistributedOptimizer, allgather,  # noqa: F401
                                  allreduce, broadcast, broadcast_global_variables, callbacks, elastic, load_model,
                                  reducescatter)

for _name in ("callbacks", "elastic"):
    sys.modules[f"{__name__}.{_name}"] = getattr(_keras, _name)
