// Broadcasting parameters in place through hvd_torch, and its fp16 compression. (Pickled objects are
// hvd.common's: they need no torch.)
#include "binding.h"
#include "hvd/torch.h"

namespace hvd::python {

void register_state(py::module_& m) {
  m.def(
      "broadcast_parameters",
      [](const hvd::torch::NamedTensors& named, int root) { hvd::torch::broadcast_parameters(named, root); },
      py::arg("named_tensors"), py::arg("root_rank"), py::call_guard<py::gil_scoped_release>(),
      "Root's tensors everywhere, in place; names must be the same on all ranks");
  m.def("compress_fp16", [](const at::Tensor& t) { return hvd::torch::compress(t, hvd::torch::Compression::kFP16); });
  m.def("decompress_fp16", [](const at::Tensor& t, const py::object& dtype) {
    return hvd::torch::decompress(t, ::torch::python::detail::py_object_to_dtype(dtype),
                                  hvd::torch::Compression::kFP16);
  });
}

}  // namespace hvd::python
