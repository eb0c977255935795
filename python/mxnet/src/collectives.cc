// The collectives as Python calls them: each pushes its hvd op on MXNet's engine, where the arrays are described
// (engine_op.h) and the op started; an op whose output size comes from negotiation writes into the output Python
// allocated, after checking that it is exactly what hvd produced.
#include <cstdint>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "binding.h"
#include "hvd/collectives.h"
#include "hvd/error.h"

namespace hvd::mxnet {
namespace {

using Handles = std::vector<std::uintptr_t>;

NDArrayHandle as_array(std::uintptr_t handle) { return reinterpret_cast<NDArrayHandle>(handle); }

std::vector<NDArrayHandle> as_arrays(const Handles& handles) {
  std::vector<NDArrayHandle> out;
  for (auto h : handles) out.push_back(as_array(h));
  return out;
}

std::string describe_shape(DataType dtype, const Shape& shape) {
  std::ostringstream s;
  s << name_of(dtype) << " [";
  for (std::size_t i = 0; i < shape.size(); ++i) s << (i ? ", " : "") << shape[i];
  s << "]";
  return s.str();
}

// The output Python allocated from the shape it negotiated; hvd must produce exactly that.
OutputAllocator into(TensorView out, std::string what) {
  return [out, what = std::move(what)](DataType dtype, const std::vector<std::int64_t>& shape) -> void* {
    if (dtype != out.dtype || Shape(shape) != out.shape)
      throw Error(ErrorKind::kMismatch, "hvd.mxnet: " + what + ": hvd's output is " + describe_shape(dtype, shape) +
                                            " but Python allocated " + describe_shape(out.dtype, out.shape));
    return out.data;
  };
}

void allreduce(const Handles& inputs, const Handles& outputs, ReduceOp op, double prescale, double postscale,
               const std::string& name, std::int32_t process_set, int priority) {
  if (inputs.empty() || inputs.size() != outputs.size())
    throw Error(ErrorKind::kUsage, "hvd.mxnet: allreduce '" + name + "' needs one output per input");
  AllreduceOptions options{op, prescale, postscale, name, process_set};
  auto start = [options](const std::vector<TensorView>& in, const std::vector<TensorView>& out) {
    if (in.size() == 1) return allreduce_async(in[0], out[0], options);
    return grouped_allreduce_async(in, out, options);
  };
  push_engine_op(runtime(), as_arrays(inputs), as_arrays(outputs), start, priority, "hvd.allreduce");
}

void broadcast(std::uintptr_t tensor, int root, const std::string& name, std::int32_t process_set, int priority) {
  BroadcastOptions options{root, name, process_set};
  auto start = [options](const std::vector<TensorView>&, const std::vector<TensorView>& out) {
    return broadcast_async(out[0], options);
  };
  push_engine_op(runtime(), {}, {as_array(tensor)}, start, priority, "hvd.broadcast");
}

void allgather(std::uintptr_t input, std::uintptr_t output, const std::string& name, std::int32_t process_set,
               int priority) {
  auto start = [name, process_set](const std::vector<TensorView>& in, const std::vector<TensorView>& out) {
    return allgather_async(in[0], {name, into(out[0], "allgather '" + name + "'"), process_set});
  };
  push_engine_op(runtime(), {as_array(input)}, {as_array(output)}, start, priority, "hvd.allgather");
}

void alltoall(std::uintptr_t input, std::uintptr_t output, const std::vector<std::int64_t>& splits,
              const std::string& name, std::int32_t process_set, int priority) {
  auto start = [splits, name, process_set](const std::vector<TensorView>& in, const std::vector<TensorView>& out) {
    return alltoall_async(in[0], {splits, name, into(out[0], "alltoall '" + name + "'"), process_set});
  };
  push_engine_op(runtime(), {as_array(input)}, {as_array(output)}, start, priority, "hvd.alltoall");
}

void reducescatter(std::uintptr_t input, std::uintptr_t output, ReduceOp op, const std::string& name,
                   std::int32_t process_set, int priority) {
  auto start = [op, name, process_set](const std::vector<TensorView>& in, const std::vector<TensorView>& out) {
    return reducescatter_async(in[0], {op, name, into(out[0], "reducescatter '" + name + "'"), process_set});
  };
  push_engine_op(runtime(), {as_array(input)}, {as_array(output)}, start, priority, "hvd.reducescatter");
}

}  // namespace

void register_collectives(py::module_& m) {
  auto release = py::call_guard<py::gil_scoped_release>();
  m.def("allreduce", &allreduce, py::arg("inputs"), py::arg("outputs"), py::arg("op"), py::arg("prescale_factor"),
        py::arg("postscale_factor"), py::arg("name"), py::arg("process_set_id"), py::arg("priority"), release,
        "Reduces inputs[i] into outputs[i] (may be the same array); more than one input is one grouped op");
  m.def("broadcast", &broadcast, py::arg("tensor"), py::arg("root_rank"), py::arg("name"), py::arg("process_set_id"),
        py::arg("priority"), release, "root_rank's tensor, in place");
  m.def("allgather", &allgather, py::arg("input"), py::arg("output"), py::arg("name"), py::arg("process_set_id"),
        py::arg("priority"), release, "Every rank's input along dimension 0, into output (allocated by the caller)");
  m.def("alltoall", &alltoall, py::arg("input"), py::arg("output"), py::arg("splits"), py::arg("name"),
        py::arg("process_set_id"), py::arg("priority"), release,
        "Rows to each rank by splits (empty: equal parts), the rows received into output");
  m.def("reducescatter", &reducescatter, py::arg("input"), py::arg("output"), py::arg("op"), py::arg("name"),
        py::arg("process_set_id"), py::arg("priority"), release, "This rank's share of the reduced input");
}

}  // namespace hvd::mxnet
