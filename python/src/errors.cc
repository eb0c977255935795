// hvd::Error (and its subtypes) -> HorovodInternalError, a RuntimeError as in Horovod. The message is libhvd's own:
// what failed, the tensor, the ranks, the fix.
#include "binding.h"
#include "hvd/error.h"

namespace hvd::python {

void register_errors(py::module_& m) {
  py::register_exception<hvd::Error>(m, "HorovodInternalError", PyExc_RuntimeError);
}

}  // namespace hvd::python
