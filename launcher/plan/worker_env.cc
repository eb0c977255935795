#include "launcher/plan/worker_env.h"

#include <algorithm>
#include <cstring>


namespace hvd::launcher {

bool is_reserved_env(std::string_view name) {
  return std::find(hvd::kReservedEnv.begin(), hvd::kReservedEnv.end(), name) != hvd::kReservedEnv.end();
}

bool is_forwarded_env(std::string_view name) {
  if (is_reserved_env(name)) return false;
  return std::any_of(kForwardedEnv.begin(), kForwardedEnv.end(), [name](std::string_view pattern) {
    if (pattern.ends_with('*')) return name.starts_with(pattern.substr(0, pattern.size() - 1));
    return name == pattern;
  });
}

WorkerContract planned_contract(const Slot& slot, int size) {
  WorkerContract contract;
  contract.placement =
      WorkerPlacement{slot.rank, size, slot.local_rank, slot.local_size, slot.cross_rank, slot.cross_size};
  contract.hostname = slot.host;
  return contract;
}

EnvMap forwarded_env(const char* const* environ_) {
  EnvMap env;
  for (auto entry = environ_; entry != nullptr && *entry != nullptr; ++entry) {
    const char* equals = std::strchr(*entry, '=');
    if (equals == nullptr) continue;
    std::string name(*entry, equals);
    if (is_forwarded_env(name)) env.emplace(std::move(name), equals + 1);
  }
  return env;
}

std::string default_omp_threads(EnvExports& exports, const std::vector<HostSpec>& hosts, const char* const* environ_) {
  constexpr std::string_view kName = "OMP_NUM_THREADS";
  for (const auto& [name, value] : exports)
    if (name == kName) return "";
  for (auto entry = environ_; entry != nullptr && *entry != nullptr; ++entry)
    if (std::string_view(*entry).starts_with("OMP_NUM_THREADS=")) return "";
  const auto shared = std::find_if(hosts.begin(), hosts.end(), [](const HostSpec& h) { return h.slots > 1; });
  if (shared == hosts.end()) return "";
  exports.emplace_back(kName, "1");
  return "OMP_NUM_THREADS=1 for every worker, as torchrun does (" + std::to_string(shared->slots) + " ranks share " +
         shared->name + "); set OMP_NUM_THREADS (or -x OMP_NUM_THREADS=N) to choose";
}

}  // namespace hvd::launcher
