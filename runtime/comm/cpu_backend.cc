#include "runtime/comm/cpu_backend.h"

#include "hvd/error.h"

namespace hvd::detail {
std::vector<CpuBackend> cpu_backends() { return {builtin_backend(), mpi_backend()}; }

std::string choose_cpu_backend(const StartConfig& start) {
  const std::string& controller = start.controller;
  const std::string& operations = start.cpu_operations;
  if (!controller.empty() && !operations.empty() && controller != operations) {
    throw Error(ErrorKind::kUsage,
                "HOROVOD_CONTROLLER=" + controller + " and HOROVOD_CPU_OPERATIONS=" + operations +
                    " disagree: hvd negotiates and moves CPU tensors on one backend; set both to the same value");
  }
  if (!controller.empty()) return controller;
  if (!operations.empty()) return operations;
  const bool under_mpirun = start.mpi_world_size.has_value();
  const bool under_hvdrun = start.store_addr.has_value();
  return under_mpirun && !under_hvdrun ? "mpi" : "builtin";
}

std::string choose_cpu_backend(const EnvLookup& env) { return choose_cpu_backend(read_start_config(env)); }

CpuConnection connect_cpu_backend(const StartConfig& start) {
  const std::string name = choose_cpu_backend(start);
  for (auto& backend : cpu_backends()) {
    if (backend.name != name) continue;
    if (!backend.built) {
      throw Error(ErrorKind::kBackend,
                  "the " + name + " backend was asked for but this build of hvd lacks it; rebuild with " +
                      (name == "mpi" ? "Open MPI (apt-get install libopenmpi-dev, -DHVD_WITH_MPI=ON)" : "it") +
                      ", or launch with hvdrun and leave HOROVOD_CONTROLLER/HOROVOD_CPU_OPERATIONS unset");
    }
    CpuConnection connection = backend.connect(start);
    connection.backend = name;
    return connection;
  }
  throw Error(ErrorKind::kUsage, "no CPU backend named '" + name + "'");
}

}  // namespace hvd::detail
