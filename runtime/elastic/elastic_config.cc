#include "runtime/elastic/elastic_config.h"

#include "common/env.h"
#include "common/error.h"
#include "common/protocol.h"

namespace hvd::detail {

bool elastic_requested(const EnvLookup& env) { return env_var::flag(env, protocol::kEnvElastic).value_or(false); }

std::optional<ElasticConfig> read_elastic_config(const EnvLookup& env) {
  if (!elastic_requested(env)) return std::nullopt;
  const std::string fix = " (hvdrun sets it for elastic jobs: start them with hvdrun --min-np/--max-np, or unset " +
                          std::string(protocol::kEnvElastic) + ")";
  ElasticConfig c;
  c.worker_id = env_var::required(env, protocol::kEnvWorkerId, "the worker's name host/slot" + fix);
  if (c.worker_id.find('/') == std::string::npos) {
    env_var::bad_value(protocol::kEnvWorkerId, c.worker_id, "a worker name host/slot" + fix);
  }
  if (auto t = env_var::integer(env, protocol::kEnvElasticTimeout,
                                env_var::between(1, 7 * 24 * 3600, "whole seconds from 1 to 604800"))) {
    c.timeout = std::chrono::seconds(*t);
  }
  if (!env_var::text(env, protocol::kEnvStoreAddr) || !env_var::text(env, protocol::kEnvSecret)) {
    throw UsageError(std::string(protocol::kEnvElastic) + "=1 but " +
                     (env_var::text(env, protocol::kEnvStoreAddr) ? protocol::kEnvSecret : protocol::kEnvStoreAddr) +
                     " is not set" + fix);
  }
  return c;
}

}  // namespace hvd::detail
