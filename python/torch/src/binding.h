// hvd.torch._C: the PyTorch binding of libhvd and hvd_torch (tensor collectives, handles, DistributedOptimizer,
// state broadcast), one register_* function per concern (module.cc calls them). What needs no torch (init, errors,
// process sets, elastic, ReduceOp) is hvd.common._core's, loaded first. Every function that waits or enqueues work
// releases the GIL, so the engine and other Python threads run.
#pragma once

#include <torch/extension.h>

namespace hvd::python {

namespace py = pybind11;

void register_handle(py::module_& m);
void register_ops(py::module_& m);
void register_state(py::module_& m);
void register_optimizer(py::module_& m);

}  // namespace hvd::python
