// The extension's entry point, the process's one Runtime (load) and the errors of ops that already completed
// on MXNet's engine (take_error: Python raises them at its next call, or after waiting on an output).
#include <memory>
#include <mutex>

#include "binding.h"
#include "hvd/error.h"

namespace hvd::mxnet {
namespace {

std::mutex runtime_mutex;
// Never destroyed: at exit MXNet's engine may still run an op whose completion this queue owes it.
Runtime* the_runtime = nullptr;
std::string loaded_path;

void load(const std::string& libmxnet) {
  std::lock_guard lock(runtime_mutex);
  if (the_runtime) {
    if (libmxnet != loaded_path)
      throw Error(ErrorKind::kUsage, "hvd.mxnet: loaded for '" + loaded_path + "', asked again for '" + libmxnet + "'");
    return;
  }
  the_runtime = new Runtime(libmxnet);
  loaded_path = libmxnet;
}

void raise_error() {
  if (auto error = runtime().completions.take_error()) std::rethrow_exception(error);
}

}  // namespace

Runtime& runtime() {
  std::lock_guard lock(runtime_mutex);
  if (!the_runtime) throw Error(ErrorKind::kUsage, "hvd.mxnet: _mx.load(libmxnet) was not called");
  return *the_runtime;
}

}  // namespace hvd::mxnet

PYBIND11_MODULE(_mx, m) {
  namespace py = pybind11;
  py::module_::import("hvd.common._core");  // registers ReduceOp and hvd::Error's translation, which _mx uses
  m.doc() = "hvd's collectives on MXNet NDArrays, run on MXNet's engine";
  m.def("load", &hvd::mxnet::load, py::arg("libmxnet"), "Binds the libmxnet this process loaded (by its path)");
  m.def("raise_error", &hvd::mxnet::raise_error,
        "Raises the oldest error of a completed op not raised yet (HorovodInternalError); returns when none");
  m.def("pending_errors", [] { return hvd::mxnet::runtime().completions.pending_errors(); });
  hvd::mxnet::register_collectives(m);
}
