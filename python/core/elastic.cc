// hvd::elastic's job-level calls for hvd.torch.elastic (the states and the run loop are Python, as Horovod's):
// enabled(), reset() and hosts_updated(). reset() and hosts_updated() wait on other ranks, so they drop the GIL.
#include "hvd/elastic.h"

#include "binding.h"

namespace hvd::python {

void register_elastic(py::module_& m) {
  m.def("elastic_enabled", &hvd::elastic::enabled, "Whether hvdrun started this process in an elastic job");
  m.def("elastic_reset", &hvd::elastic::reset, py::call_guard<py::gil_scoped_release>(),
        "Re-forms the job: shutdown, then init with the place hvdrun assigns in the next rendezvous");
  m.def("elastic_generation", &hvd::elastic::generation,
        "hvdrun's count of the job's formations (grows at every reset); -1 outside an elastic job");
  m.def("elastic_hosts_updated", &hvd::elastic::hosts_updated, py::call_guard<py::gil_scoped_release>(),
        "Collective: whether rank 0 heard that hosts were added or removed since the last reset");
}

}  // namespace hvd::python
