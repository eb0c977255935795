// The extension module's entry point: Python imports torch first (hvd/torch/__init__.py), then this.
#include "binding.h"

PYBIND11_MODULE(_C, m) {
  m.doc() = "hvd's binding for PyTorch: libhvd's collectives and hvd_torch's DistributedOptimizer";
  hvd::python::register_errors(m);
  hvd::python::register_basics(m);
  hvd::python::register_handle(m);
  hvd::python::register_ops(m);
  hvd::python::register_process_sets(m);
  hvd::python::register_state(m);
  hvd::python::register_optimizer(m);
  hvd::python::register_timeline(m);
  hvd::python::register_elastic(m);
}
