// _core.record_uncaught: a Python exception nobody caught goes to libhvd's one cause-or-consequence rule
// (hvd_record_uncaught, c_api.h), so hvd.common.failure_record only collects what Python knows of it.
#include "binding.h"
#include "hvd/c_api.h"

namespace hvd::python {

namespace {

void record_uncaught(const std::string& path, const std::string& type_name, const std::string& message,
                     const std::vector<std::string>& frames, bool is_hvd_error, int peer, const std::string& tensor) {
  std::vector<const char*> frame_ptrs;
  frame_ptrs.reserve(frames.size());
  for (const auto& f : frames) frame_ptrs.push_back(f.c_str());
  hvd_uncaught_exception e{.source = "python",
                           .type_name = type_name.c_str(),
                           .message = message.c_str(),
                           .frames = frame_ptrs.data(),
                           .num_frames = static_cast<int>(frame_ptrs.size()),
                           .is_hvd_error = is_hvd_error ? 1 : 0,
                           .peer = peer,
                           .tensor = tensor.c_str()};
  hvd_record_uncaught(path.c_str(), &e);
}

}  // namespace

void register_failure_record(py::module_& m) {
  m.def("record_uncaught", &record_uncaught, py::arg("path"), py::arg("type_name"), py::arg("message"),
        py::arg("frames"), py::arg("is_hvd_error"), py::arg("peer") = -1, py::arg("tensor") = "",
        "Records an uncaught exception in the failure record file `path` for hvdrun's report: a cause, or a "
        "consequence of the rank an hvd error is down to (libhvd's rule).");
}

}  // namespace hvd::python
