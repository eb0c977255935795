// init/shutdown and the questions about this process's place in the job and what libhvd was built with.
#include "binding.h"
#include "hvd/hvd.h"

namespace hvd::python {

void register_basics(py::module_& m) {
  m.def("init", py::overload_cast<>(&hvd::init), py::call_guard<py::gil_scoped_release>(), "Start the runtime (reads HOROVOD_*)");
  m.def("shutdown", &hvd::shutdown, py::call_guard<py::gil_scoped_release>());
  m.def("is_initialized", &hvd::is_initialized);
  m.def("rank", &hvd::rank);
  m.def("size", &hvd::size);
  m.def("local_rank", &hvd::local_rank);
  m.def("local_size", &hvd::local_size);
  m.def("cross_rank", &hvd::cross_rank);
  m.def("cross_size", &hvd::cross_size);
  m.def("cpu_backend", &hvd::cpu_backend, "'builtin' (TCP + shared memory) or 'mpi'");
  m.def("mpi_built", &hvd::mpi_built);
  m.def("mpi_enabled", &hvd::mpi_enabled);
  m.def("nccl_built", &hvd::nccl_built);
}

}  // namespace hvd::python
