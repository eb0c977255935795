#include "common/worker_contract.h"

#include "common/error.h"
#include "common/protocol.h"

namespace hvd {
namespace {

void write_placement(const WorkerPlacement& p, EnvMap& env) {
  env[worker_var::kRank] = std::to_string(p.rank);
  env[worker_var::kSize] = std::to_string(p.size);
  env[worker_var::kLocalRank] = std::to_string(p.local_rank);
  env[worker_var::kLocalSize] = std::to_string(p.local_size);
  env[worker_var::kCrossRank] = std::to_string(p.cross_rank);
  env[worker_var::kCrossSize] = std::to_string(p.cross_size);
}

int read_int(const std::string& name, const std::string& value, long long lo, long long hi, std::string expected) {
  return static_cast<int>(env_var::parse_integer(name, value, env_var::between(lo, hi, std::move(expected))));
}

WorkerPlacement read_placement(const env_var::Lookup& env, const std::string& rank) {
  auto need = [&](const char* name) -> std::string {
    auto v = env_var::text(env, name);
    if (!v) {
      throw UsageError(std::string(worker_var::kRank) + " is set but " + name + " is not: start workers with hvdrun");
    }
    return *v;
  };
  auto optional_int = [&](const char* name, int fallback, long long lo, long long hi) {
    auto v = env_var::text(env, name);
    if (!v) return fallback;
    return read_int(name, *v, lo, hi, "an integer from " + std::to_string(lo) + " to " + std::to_string(hi));
  };
  constexpr long long kMaxSize = 1 << 24;
  WorkerPlacement p;
  p.size = read_int(worker_var::kSize, need(worker_var::kSize), 1, kMaxSize, "a positive rank count");
  p.rank = read_int(worker_var::kRank, rank, 0, p.size - 1,
                    "a rank from 0 to HOROVOD_SIZE-1=" + std::to_string(p.size - 1));
  p.local_size = optional_int(worker_var::kLocalSize, p.size, 1, p.size);
  p.local_rank = optional_int(worker_var::kLocalRank, p.rank, 0, p.local_size - 1);
  p.cross_size = optional_int(worker_var::kCrossSize, 1, 1, p.size);
  p.cross_rank = optional_int(worker_var::kCrossRank, 0, 0, p.cross_size - 1);
  return p;
}

ElasticWorker read_elastic(const env_var::Lookup& env) {
  const std::string fix = " (hvdrun sets it for elastic jobs: start them with hvdrun --min-np/--max-np, or unset " +
                          std::string(protocol::kEnvElastic) + ")";
  ElasticWorker w;
  w.worker_id = env_var::required(env, protocol::kEnvWorkerId, "the worker's name host/slot" + fix);
  if (w.worker_id.find('/') == std::string::npos) {
    env_var::bad_value(protocol::kEnvWorkerId, w.worker_id, "a worker name host/slot" + fix);
  }
  w.timeout_s = env_var::integer(env, protocol::kEnvElasticTimeout,
                                 env_var::between(1, 7 * 24 * 3600, "whole seconds from 1 to 604800"));
  const bool has_store = env_var::text(env, protocol::kEnvStoreAddr).has_value();
  if (!has_store || !env_var::text(env, protocol::kEnvSecret)) {
    throw UsageError(std::string(protocol::kEnvElastic) + "=1 but " +
                     (has_store ? protocol::kEnvSecret : protocol::kEnvStoreAddr) + " is not set" + fix);
  }
  return w;
}

}  // namespace

void write_worker_env(const WorkerContract& contract, EnvMap& env) {
  env["PYTHONUNBUFFERED"] = "1";
  for (const auto& [name, value] : contract.exports) env[name] = value;
  if (contract.placement) write_placement(*contract.placement, env);
  if (contract.hostname) env[worker_var::kHostname] = *contract.hostname;
  if (contract.store_addr) env[protocol::kEnvStoreAddr] = *contract.store_addr;
  if (contract.secret_hex && !contract.secret_hex->empty()) env[protocol::kEnvSecret] = *contract.secret_hex;
  if (!contract.data_addr.empty()) env[protocol::kEnvDataAddr] = contract.data_addr;
  if (contract.elastic) {
    env[protocol::kEnvElastic] = "1";
    env[protocol::kEnvWorkerId] = contract.elastic->worker_id;
    if (contract.elastic->timeout_s) env[protocol::kEnvElasticTimeout] = std::to_string(*contract.elastic->timeout_s);
  }
}

WorkerContract read_worker_contract(const env_var::Lookup& env) {
  WorkerContract c;
  c.hostname = env_var::text(env, worker_var::kHostname);
  if (auto rank = env_var::text(env, worker_var::kRank)) c.placement = read_placement(env, *rank);
  c.store_addr = env_var::text(env, protocol::kEnvStoreAddr);
  c.secret_hex = env_var::text(env, protocol::kEnvSecret);
  c.data_addr = env_var::text(env, protocol::kEnvDataAddr).value_or("");
  if (env_var::flag(env, protocol::kEnvElastic).value_or(false)) c.elastic = read_elastic(env);
  return c;
}

}  // namespace hvd
