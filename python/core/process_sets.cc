// Process sets (hvd/process_set.h) for hvd.torch's ProcessSet objects, which hold the ids.
#include "binding.h"
#include "hvd/hvd.h"

namespace hvd::python {

void register_process_sets(py::module_& m) {
  m.def("init_with_process_sets", py::overload_cast<const std::vector<std::vector<int>>&>(&hvd::init),
        py::arg("process_sets"), py::call_guard<py::gil_scoped_release>());
  m.def(
      "add_process_set", [](const std::vector<int>& ranks) { return hvd::add_process_set(ranks).id(); },
      py::arg("ranks"), py::call_guard<py::gil_scoped_release>(), "Collective over every rank; returns the new id");
  m.def(
      "remove_process_set", [](std::int32_t id) { hvd::remove_process_set(hvd::process_set(id)); }, py::arg("id"),
      py::call_guard<py::gil_scoped_release>());
  m.def("process_set_ranks", [](std::int32_t id) { return hvd::process_set(id).ranks(); }, py::arg("id"));
  m.def("process_set_rank", [](std::int32_t id) { return hvd::process_set(id).rank(); }, py::arg("id"));
  m.def("process_set_ids", [] {
    std::vector<std::int32_t> ids;
    for (const auto& s : hvd::process_sets()) ids.push_back(s.id());
    return ids;
  });
}

}  // namespace hvd::python
