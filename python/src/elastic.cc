// hvd::elastic's job-level calls for hvd.torch.elastic (the states and the run loop are Python, as Horovod's):
// enabled(), reset() and hosts_updated(). reset() and hosts_updated() wait on other ranks, so they drop the GIL.
// Bound only when this libhvd implements include/hvd/elastic.h (HVD_PYTHON_ELASTIC); without it hvd.elastic
// works in static jobs and says what is missing when asked to reset.
#include "binding.h"

#ifdef HVD_PYTHON_ELASTIC
#include "hvd/elastic.h"
#endif

namespace hvd::python {

void register_elastic([[maybe_unused]] py::module_& m) {
#ifdef HVD_PYTHON_ELASTIC
  m.def("elastic_enabled", &hvd::elastic::enabled, "Whether hvdrun started this process in an elastic job");
  m.def("elastic_reset", &hvd::elastic::reset, py::call_guard<py::gil_scoped_release>(),
        "Re-forms the job: shutdown, then init with the place hvdrun assigns in the next rendezvous");
  m.def("elastic_hosts_updated", &hvd::elastic::hosts_updated, py::call_guard<py::gil_scoped_release>(),
        "Collective: whether rank 0 heard that hosts were added or removed since the last reset");
#endif
}

}  // namespace hvd::python
