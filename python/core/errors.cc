// hvd::Error (and its subtypes) -> HorovodInternalError, a RuntimeError as in Horovod. The message is libhvd's own:
// what failed, the tensor, the ranks, the fix. The exception also carries the error's fields, so Python can tell a
// lost peer or a re-formed job (hvd.elastic.run resets on those) from a bad call without parsing the message:
// kind (an ErrorKind), rank, host, peer and tensor (-1 / "" where unknown).
#include "binding.h"
#include "hvd/error.h"

namespace hvd::python {

void register_errors(py::module_& m) {
  py::enum_<ErrorKind>(m, "ErrorKind")
      .value("Internal", ErrorKind::kInternal)
      .value("Usage", ErrorKind::kUsage)
      .value("PeerLost", ErrorKind::kPeerLost)
      .value("Mismatch", ErrorKind::kMismatch)
      .value("Stall", ErrorKind::kStall)
      .value("Backend", ErrorKind::kBackend)
      .value("Membership", ErrorKind::kMembership);
  // Leaked on purpose: the translator may run while the interpreter is finalizing.
  static auto* type = new py::exception<hvd::Error>(m, "HorovodInternalError", PyExc_RuntimeError);
  py::register_exception_translator([](std::exception_ptr thrown) {
    try {
      if (thrown) std::rethrow_exception(thrown);
    } catch (const hvd::Error& e) {
      py::object error = py::handle(type->ptr())(e.what());  // an instance, to carry the fields
      error.attr("kind") = py::cast(e.kind());
      error.attr("rank") = e.context().rank;
      error.attr("host") = e.context().host;
      error.attr("peer") = e.context().peer;
      error.attr("tensor") = e.context().tensor;
      PyErr_SetObject(type->ptr(), error.ptr());
    }
  });
}

}  // namespace hvd::python
