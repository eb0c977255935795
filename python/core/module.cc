// The extension module's entry point; hvd/common/__init__.py imports it before any framework's binding.
#include "binding.h"

PYBIND11_MODULE(_core, m) {
  m.doc() = "hvd's framework-free binding of libhvd, shared by every framework module";
  hvd::python::register_errors(m);
  hvd::python::register_types(m);
  hvd::python::register_basics(m);
  hvd::python::register_process_sets(m);
  hvd::python::register_timeline(m);
  hvd::python::register_elastic(m);
  hvd::python::register_objects(m);
  hvd::python::register_failure_record(m);
}
