// hvd.common._core: the framework-free binding of libhvd that every framework module (hvd.torch, hvd.tensorflow,
// hvd.mxnet) shares: init and the job's shape, errors, process sets, elastic, the timeline, collectives over
// Python bytes, and the record of an uncaught exception. One register_* function per concern (module.cc calls
// them). Every call that waits releases the GIL. It registers hvd::Error's translation and the ReduceOp and
// ErrorKind types once for the process; the framework bindings, loaded after it, use them as they are.
#pragma once

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace hvd::python {

namespace py = pybind11;

void register_errors(py::module_& m);
void register_types(py::module_& m);
void register_basics(py::module_& m);
void register_process_sets(py::module_& m);
void register_timeline(py::module_& m);
void register_elastic(py::module_& m);
void register_objects(py::module_& m);
void register_failure_record(py::module_& m);

}  // namespace hvd::python
