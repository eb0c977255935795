#include "launcher/plan/worker_env.h"

#include <algorithm>
#include <cstring>

#include "common/protocol.h"

namespace hvd::launcher {

bool is_reserved_env(std::string_view name) {
  return std::find(kReservedEnv.begin(), kReservedEnv.end(), name) != kReservedEnv.end();
}

bool is_forwarded_env(std::string_view name) {
  if (is_reserved_env(name)) return false;
  return std::any_of(kForwardedEnv.begin(), kForwardedEnv.end(), [name](std::string_view pattern) {
    if (pattern.ends_with('*')) return name.starts_with(pattern.substr(0, pattern.size() - 1));
    return name == pattern;
  });
}

EnvMap common_worker_env(const LaunchOptions& options, const std::string& store_addr, const std::string& secret_hex,
                         const std::string& data_addr) {
  EnvMap env;
  env.emplace("PYTHONUNBUFFERED", "1");  // before the exports: -x PYTHONUNBUFFERED=0 may turn it off
  for (const auto& [name, value] : options.exports) env[name] = value;
  env[protocol::kEnvStoreAddr] = store_addr;
  // The agent already hands its workers the secret it read on stdin; an empty value keeps it out of the
  // launch frame, which is authenticated but not encrypted.
  if (!secret_hex.empty()) env[protocol::kEnvSecret] = secret_hex;
  if (!data_addr.empty()) env[protocol::kEnvDataAddr] = data_addr;
  return env;
}

EnvMap worker_env(const Slot& slot, int size, const LaunchOptions& options, const std::string& store_addr,
                  const std::string& secret_hex, const std::string& data_addr) {
  EnvMap env = common_worker_env(options, store_addr, secret_hex, data_addr);
  env["HOROVOD_RANK"] = std::to_string(slot.rank);
  env["HOROVOD_SIZE"] = std::to_string(size);
  env["HOROVOD_LOCAL_RANK"] = std::to_string(slot.local_rank);
  env["HOROVOD_LOCAL_SIZE"] = std::to_string(slot.local_size);
  env["HOROVOD_CROSS_RANK"] = std::to_string(slot.cross_rank);
  env["HOROVOD_CROSS_SIZE"] = std::to_string(slot.cross_size);
  env["HOROVOD_HOSTNAME"] = slot.host;
  return env;
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

std::string default_omp_threads(LaunchOptions& options, const char* const* environ_) {
  constexpr std::string_view kName = "OMP_NUM_THREADS";
  for (const auto& [name, value] : options.exports)
    if (name == kName) return "";
  for (auto entry = environ_; entry != nullptr && *entry != nullptr; ++entry)
    if (std::string_view(*entry).starts_with("OMP_NUM_THREADS=")) return "";
  const bool elastic = options.elastic.has_value();
  if (elastic && !options.elastic->discovery_script.empty()) return "";
  const auto& hosts = elastic ? options.hosts : options.plan.hosts;
  const auto shared = std::find_if(hosts.begin(), hosts.end(), [](const HostSpec& h) { return h.slots > 1; });
  if (shared == hosts.end()) return "";
  options.exports.emplace_back(kName, "1");
  return "OMP_NUM_THREADS=1 for every worker, as torchrun does (" + std::to_string(shared->slots) + " ranks share " +
         shared->name + "); set OMP_NUM_THREADS (or -x OMP_NUM_THREADS=N) to choose";
}

}  // namespace hvd::launcher
