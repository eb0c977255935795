"""Broadcasting training state, as horovod.mxnet's broadcast_parameters, and hvd.common's pickled objects.

A Gluon parameter whose shape is inferred on the first forward pass has no data yet: it is broadcast right after
its first initialization instead (its _init_impl is wrapped), as Horovod does.
"""

import types

import mxnet as mx

from hvd.common.basics import size
from hvd.common.objects import allgather_object, broadcast_object  # noqa: F401  (re-exported)
from hvd.common.process_sets import global_process_set
from hvd.mxnet.mpi_ops import broadcast_


def _broadcast_after_init(param, root_rank, name, process_set):
    init_impl = param._init_impl

    def init_then_broadcast(self, *args, **kwargs):
        init_impl(*args, **kwargs)
        broadcast_(self.data(), root_rank, name=name, process_set=process_set)

    param._init_impl = types.MethodType(init_then_broadcast, param)


def broadcast_parameters(params, root_rank=0, prefix=None, process_set=global_process_set):
    """Overwrites every rank's parameters with root_rank's, in place. `params`: a Gluon ParameterDict
    (net.collect_params()) or a dict of name -> NDArray (Module's get_params()). All ranks must pass the same names."""
    if size() == 1:
        return
    prefix = prefix or ""
    if isinstance(params, mx.gluon.parameter.ParameterDict):
        named = []
        for name, param in sorted(params.items()):
            try:
                named.append((name, param.data()))
            except mx.gluon.parameter.DeferredInitializationError:
                _broadcast_after_init(param, root_rank, prefix + name, process_set)
    elif isinstance(params, dict):
        named = sorted(params.items())
    else:
        raise ValueError(f"hvd.mxnet.broadcast_parameters: params is a {type(params).__name__}; pass a Gluon "
                         "ParameterDict (net.collect_params()) or a dict of NDArrays")
    for name, tensor in named:
        broadcast_(tensor, root_rank, name=prefix + str(name), process_set=process_set)
