// The reduction ops as Python sees them (hvd.Average, hvd.Sum, ...), one type for every framework's binding.
#include "binding.h"
#include "hvd/types.h"

namespace hvd::python {

void register_types(py::module_& m) {
  py::enum_<ReduceOp>(m, "ReduceOp")
      .value("Average", ReduceOp::kAverage)
      .value("Sum", ReduceOp::kSum)
      .value("Adasum", ReduceOp::kAdasum)
      .value("Min", ReduceOp::kMin)
      .value("Max", ReduceOp::kMax)
      .value("Product", ReduceOp::kProduct);
}

}  // namespace hvd::python
