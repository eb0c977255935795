// Collectives that need no framework's tensors: barrier, join, and pickled Python objects as bytes (broadcast_object,
// allgather_object and what init() learns about the job are built on these in hvd/common). Each waits without the
// GIL; the bytes travel as uint8 tensors through libhvd, their lengths first.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "binding.h"
#include "hvd/collectives.h"

namespace hvd::python {
namespace {

TensorView bytes_view(std::string& bytes) {
  return TensorView{bytes.data(), DataType::kUInt8, {static_cast<std::int64_t>(bytes.size())}, Device::cpu()};
}

std::string broadcast_bytes(std::string data, int root, const std::string& name, std::int32_t process_set) {
  std::int64_t length = static_cast<std::int64_t>(data.size());
  broadcast(TensorView{&length, DataType::kInt64, {1}, Device::cpu()},
            {.root = root, .name = name + "/size", .process_set = process_set});
  data.resize(static_cast<std::size_t>(length));
  broadcast(bytes_view(data), {.root = root, .name = name + "/bytes", .process_set = process_set});
  return data;
}

std::vector<std::int64_t> allgather_int64(std::int64_t value, const std::string& name, std::int32_t process_set) {
  Output gathered =
      allgather(TensorView{&value, DataType::kInt64, {1}, Device::cpu()}, {.name = name, .allocate = {}, .process_set = process_set});
  const auto* values = static_cast<const std::int64_t*>(gathered.tensor().data);
  return {values, values + gathered.tensor().num_elements()};
}

std::vector<std::string> allgather_bytes(std::string data, const std::string& name, std::int32_t process_set) {
  const auto lengths = allgather_int64(static_cast<std::int64_t>(data.size()), name + "/sizes", process_set);
  Output gathered = allgather(bytes_view(data), {.name = name + "/bytes", .allocate = {}, .process_set = process_set});
  const auto* at = static_cast<const char*>(gathered.tensor().data);
  std::vector<std::string> out;
  out.reserve(lengths.size());
  for (auto length : lengths) {
    out.emplace_back(at, static_cast<std::size_t>(length));
    at += length;
  }
  return out;
}

}  // namespace

void register_objects(py::module_& m) {
  m.def("barrier", py::overload_cast<std::int32_t>(&hvd::barrier), py::arg("process_set_id") = 0,
        py::call_guard<py::gil_scoped_release>());
  m.def("join", &hvd::join, py::call_guard<py::gil_scoped_release>(), "Returns the last rank to join");
  m.def(
      "broadcast_bytes",
      [](const py::bytes& data, int root, const std::string& name, std::int32_t process_set) {
        std::string copy = data;
        {
          py::gil_scoped_release no_gil;
          copy = broadcast_bytes(std::move(copy), root, name, process_set);
        }
        return py::bytes(copy);
      },
      py::arg("data"), py::arg("root_rank"), py::arg("name"), py::arg("process_set_id") = 0,
      "root_rank's bytes on every rank of the set");
  m.def(
      "allgather_bytes",
      [](const py::bytes& data, const std::string& name, std::int32_t process_set) {
        std::string copy = data;
        std::vector<std::string> gathered;
        {
          py::gil_scoped_release no_gil;
          gathered = allgather_bytes(std::move(copy), name, process_set);
        }
        py::list out;
        for (const auto& b : gathered) out.append(py::bytes(b));
        return out;
      },
      py::arg("data"), py::arg("name"), py::arg("process_set_id") = 0,
      "Every rank's bytes, in rank order of the set");
  m.def("allgather_int64", &allgather_int64, py::arg("value"), py::arg("name"), py::arg("process_set_id") = 0,
        py::call_guard<py::gil_scoped_release>(), "Every rank's value, in rank order of the set");
}

}  // namespace hvd::python
