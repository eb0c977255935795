"""horovod.tensorflow is hvd.tensorflow: the same objects, and its submodules under Horovod's names."""

import sys

import hvd.tensorflow as _hvd_tf
from hvd.tensorflow import *  # noqa: F401,F403
from hvd.tensorflow import (_allreduce, _grouped_allreduce, _grouped_reducescatter, _reducescatter,  # noqa: F401
                            _executing_eagerly, _make_subgraph, _cache, vars_to_refs, refs_to_vars)
import hvd.tensorflow.keras as _hvd_tf_keras

for _name in ("mpi_ops", "compression", "functions", "elastic", "util", "keras"):
    sys.modules[f"{__name__}.{_name}"] = getattr(_hvd_tf, _name)
for _name in ("callbacks", "elastic"):
    sys.modules[f"{__name__}.keras.{_name}"] = getattr(_hvd_tf_keras, _name)
