// The tensor collectives, each enqueued without the GIL through hvd_torch (grouped allreduce straight through
// libhvd, which hvd_torch does not wrap). Each returns a Handle; the blocking forms are Python's (wait at once).
#include <string>
#include <utility>
#include <vector>

#include "binding.h"
#include "handle.h"

namespace hvd::python {
namespace {

using hvd::torch::TensorHandle;

AllreduceOptions allreduce_options(ReduceOp op, double prescale, double postscale, std::string name,
                                   std::int32_t process_set) {
  AllreduceOptions o;
  o.process_set = process_set;
  o.op = op;
  o.prescale_factor = prescale;
  o.postscale_factor = postscale;
  o.name = std::move(name);
  return o;
}

std::string label(const std::string& op, const std::string& name, std::size_t index) {
  return op + (name.empty() ? std::string() : " '" + name + "'") + " tensor " + std::to_string(index);
}

Handle allreduce_async(at::Tensor tensor, bool in_place, ReduceOp op, double prescale, double postscale,
                       std::string name, std::int32_t process_set) {
  py::gil_scoped_release no_gil;
  auto options = allreduce_options(op, prescale, postscale, std::move(name), process_set);
  return Handle(in_place ? hvd::torch::allreduce_async_(tensor, options)
                         : hvd::torch::allreduce_async(tensor, options));
}

// The blocking form in one call: the enqueue and the wait share one release of the GIL and no Handle is made,
// which is most of what a Python call adds for small tensors.
at::Tensor allreduce(at::Tensor tensor, bool in_place, ReduceOp op, double prescale, double postscale,
                     std::string name, std::int32_t process_set) {
  py::gil_scoped_release no_gil;
  auto options = allreduce_options(op, prescale, postscale, std::move(name), process_set);
  if (!in_place) return hvd::torch::allreduce(tensor, options);
  hvd::torch::allreduce_(tensor, options);
  return tensor;
}

Handle grouped_allreduce_async(std::vector<at::Tensor> tensors, bool in_place, ReduceOp op, double prescale,
                               double postscale, std::string name, std::int32_t process_set) {
  py::gil_scoped_release no_gil;
  std::vector<TensorView> inputs, outputs;
  std::vector<at::Tensor> results;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    inputs.push_back(hvd::torch::view_of(tensors[i], label("grouped_allreduce", name, i)));
    results.push_back(in_place ? tensors[i] : at::empty_like(tensors[i], at::MemoryFormat::Contiguous));
    outputs.push_back(hvd::torch::view_of(results.back(), label("grouped_allreduce", name, i)));
  }
  auto handle = hvd::grouped_allreduce_async(inputs, outputs, allreduce_options(op, prescale, postscale, name, process_set));
  return Handle(std::move(handle), std::move(tensors), std::move(results));
}

Handle allgather_async(at::Tensor tensor, std::string name, std::int32_t process_set) {
  py::gil_scoped_release no_gil;
  AllgatherOptions options;
  options.process_set = process_set;
  options.name = std::move(name);
  return Handle(hvd::torch::allgather_async(tensor, options));
}

Handle broadcast_async(at::Tensor tensor, bool in_place, int root, std::string name, std::int32_t process_set) {
  py::gil_scoped_release no_gil;
  BroadcastOptions options;
  options.process_set = process_set;
  options.root = root;
  options.name = std::move(name);
  return Handle(in_place ? hvd::torch::broadcast_async_(tensor, options)
                         : hvd::torch::broadcast_async(tensor, options));
}

Handle alltoall_async(at::Tensor tensor, std::vector<std::int64_t> splits, std::string name,
                      std::int32_t process_set) {
  py::gil_scoped_release no_gil;
  AlltoallOptions options;
  options.process_set = process_set;
  options.splits = std::move(splits);
  options.name = std::move(name);
  return Handle(hvd::torch::alltoall_async(tensor, options), Handle::Kind::kTensorAndSplits);
}

Handle reducescatter_async(at::Tensor tensor, ReduceOp op, std::string name, std::int32_t process_set) {
  py::gil_scoped_release no_gil;
  ReducescatterOptions options;
  options.process_set = process_set;
  options.op = op;
  options.name = std::move(name);
  return Handle(hvd::torch::reducescatter_async(tensor, options));
}

}  // namespace

void register_ops(py::module_& m) {
  m.def("allreduce_async", &allreduce_async, py::arg("tensor"), py::arg("in_place"), py::arg("op"),
        py::arg("prescale_factor"), py::arg("postscale_factor"), py::arg("name"), py::arg("process_set_id") = 0);
  m.def("allreduce", &allreduce, py::arg("tensor"), py::arg("in_place"), py::arg("op"), py::arg("prescale_factor"),
        py::arg("postscale_factor"), py::arg("name"), py::arg("process_set_id") = 0);
  m.def("grouped_allreduce_async", &grouped_allreduce_async, py::arg("tensors"), py::arg("in_place"), py::arg("op"),
        py::arg("prescale_factor"), py::arg("postscale_factor"), py::arg("name"), py::arg("process_set_id") = 0);
  m.def("allgather_async", &allgather_async, py::arg("tensor"), py::arg("name"), py::arg("process_set_id") = 0);
  m.def("broadcast_async", &broadcast_async, py::arg("tensor"), py::arg("in_place"), py::arg("root_rank"),
        py::arg("name"), py::arg("process_set_id") = 0);
  m.def("alltoall_async", &alltoall_async, py::arg("tensor"), py::arg("splits"), py::arg("name"),
        py::arg("process_set_id") = 0);
  m.def("reducescatter_async", &reducescatter_async, py::arg("tensor"), py::arg("op"), py::arg("name"),
        py::arg("process_set_id") = 0);
}

}  // namespace hvd::python
