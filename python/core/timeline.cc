// start_timeline/stop_timeline, bound when this libhvd has them (hvd/timeline.h). Without them the module lacks
// both names and hvd.torch raises NotImplementedError saying what to do instead.
#include "binding.h"

#if __has_include("hvd/timeline.h")
#include "hvd/timeline.h"
#define HVD_PYTHON_HAS_TIMELINE 1
#endif

namespace hvd::python {

void register_timeline([[maybe_unused]] py::module_& m) {
#ifdef HVD_PYTHON_HAS_TIMELINE
  m.def("start_timeline", &hvd::start_timeline, py::arg("file_path"), py::arg("mark_cycles") = false,
        py::call_guard<py::gil_scoped_release>());
  m.def("stop_timeline", &hvd::stop_timeline, py::call_guard<py::gil_scoped_release>());
#endif
}

}  // namespace hvd::python
