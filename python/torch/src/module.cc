// The extension module's entry point: Python imports torch first (hvd/torch/__init__.py), then this.
#include "binding.h"

PYBIND11_MODULE(_C, m) {
  m.doc() = "hvd's binding for PyTorch: libhvd's collectives and hvd_torch's DistributedOptimizer";
  // hvd::Error's translation and the ReduceOp type are registered there, once for every framework's binding.
  pybind11::module_::import("hvd.common._core");
  hvd::python::register_handle(m);
  hvd::python::register_ops(m);
  hvd::python::register_state(m);
  hvd::python::register_optimizer(m);
}
