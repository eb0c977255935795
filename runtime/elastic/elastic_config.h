// Whether this process is a worker of an elastic job, and its elastic settings, read once at init() from what
// hvdrun sets (common/protocol.h): HOROVOD_ELASTIC=1, HVD_WORKER_ID=<host>/<slot>, HVD_ELASTIC_TIMEOUT (seconds).
// A missing or malformed variable throws hvd::Error (usage) naming it and the fix.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "runtime/comm/config.h"

namespace hvd::detail {

struct ElasticConfig {
  std::string worker_id;              // HVD_WORKER_ID: the stable name hvdrun knows this worker by
  std::chrono::seconds timeout{600};  // HVD_ELASTIC_TIMEOUT: how long hvdrun may take to form a generation
};

// True when HOROVOD_ELASTIC is set to anything but "" or "0" (Horovod's switch convention).
bool elastic_requested(const EnvLookup& env);
// std::nullopt outside an elastic job; else the settings, checked.
std::optional<ElasticConfig> read_elastic_config(const EnvLookup& env);

}  // namespace hvd::detail
