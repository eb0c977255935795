#include "runtime/elastic/elastic_config.h"

#include "common/env.h"
#include "common/protocol.h"
#include "common/worker_contract.h"

namespace hvd::detail {

bool elastic_requested(const EnvLookup& env) { return env_var::flag(env, protocol::kEnvElastic).value_or(false); }

std::optional<ElasticConfig> read_elastic_config(const EnvLookup& env) {
  if (!elastic_requested(env)) return std::nullopt;
  const auto worker = read_worker_contract(env).elastic;
  if (!worker) return std::nullopt;
  ElasticConfig c;
  c.worker_id = worker->worker_id;
  if (worker->timeout_s) c.timeout = std::chrono::seconds(*worker->timeout_s);
  return c;
}

}  // namespace hvd::detail
