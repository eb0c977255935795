#include "runtime/comm/cpu_backend.h"

#include <cctype>

#include "common/protocol.h"
#include "hvd/error.h"

namespace hvd::detail {
namespace {

// "mpi", "builtin" or empty (unset); anything else is an error naming the variable.
std::string asked_for(const EnvLookup& env, const char* variable) {
  auto value = env(variable);
  if (!value || value->empty()) return "";
  std::string v;
  for (char c : *value) v += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (v == "mpi") return "mpi";
  if (v == "builtin" || v == "gloo" || v == "tcp") return "builtin";
  throw Error(std::string("bad ") + variable + "='" + *value + "': expected mpi or builtin");
}

}  // namespace

std::vector<CpuBackend> cpu_backends() { return {builtin_backend(), mpi_backend()}; }

std::string choose_cpu_backend(const EnvLookup& env) {
  const std::string controller = asked_for(env, "HOROVOD_CONTROLLER");
  const std::string operations = asked_for(env, "HOROVOD_CPU_OPERATIONS");
  if (!controller.empty() && !operations.empty() && controller != operations) {
    throw Error("HOROVOD_CONTROLLER=" + controller + " and HOROVOD_CPU_OPERATIONS=" + operations +
                " disagree: hvd negotiates and moves CPU tensors on one backend; set both to the same value");
  }
  if (!controller.empty()) return controller;
  if (!operations.empty()) return operations;
  const bool under_mpirun = env("OMPI_COMM_WORLD_SIZE").has_value();
  const bool under_hvdrun = env(protocol::kEnvStoreAddr).has_value();
  return under_mpirun && !under_hvdrun ? "mpi" : "builtin";
}

CpuConnection connect_cpu_backend(const EnvLookup& env) {
  const std::string name = choose_cpu_backend(env);
  for (auto& backend : cpu_backends()) {
    if (backend.name != name) continue;
    if (!backend.built) {
      throw Error("the " + name + " backend was asked for but this build of hvd lacks it; rebuild with " +
                  (name == "mpi" ? "Open MPI (apt-get install libopenmpi-dev, -DHVD_WITH_MPI=ON)" : "it") +
                  ", or launch with hvdrun and leave HOROVOD_CONTROLLER/HOROVOD_CPU_OPERATIONS unset");
    }
    CpuConnection connection = backend.connect(env);
    connection.backend = name;
    return connection;
  }
  throw Error("no CPU backend named '" + name + "'");
}

}  // namespace hvd::detail
