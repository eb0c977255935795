// hvd.torch._C: the Python binding of libhvd and hvd_torch, one register_* function per concern (module.cc calls
// them). Every function that waits or enqueues work releases the GIL, so the engine and other Python threads run;
// hvd::Error surfaces in Python as hvd.torch.HorovodInternalError with libhvd's message.
#pragma once

#include <torch/extension.h>

namespace hvd::python {

namespace py = pybind11;

void register_errors(py::module_& m);
void register_basics(py::module_& m);
void register_handle(py::module_& m);
void register_ops(py::module_& m);
void register_process_sets(py::module_& m);
void register_state(py::module_& m);
void register_optimizer(py::module_& m);
void register_timeline(py::module_& m);
void register_elastic(py::module_& m);

}  // namespace hvd::python
