// The worker contract: what a launcher hands each worker in its environment, and what the worker reads back.
// hvdrun fills one per rank (its placement from the plan or the elastic job, the store and data addresses, the
// -x exports) and writes it into the launch frame; hvd-agent adds the secret it read on stdin; libhvd
// (runtime/comm/config.cc, runtime/elastic/elastic_config.cc) and hvd-agent --check-peers read it. Each variable's name
// is spelled here (or in common/protocol.h) once; write_worker_env is the one writer, read_worker_contract the one
// reader.
#pragma once

#include <array>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/env.h"

namespace hvd {

// The placement variables, Horovod's names.
namespace worker_var {
inline constexpr const char* kRank = "HOROVOD_RANK";
inline constexpr const char* kSize = "HOROVOD_SIZE";
inline constexpr const char* kLocalRank = "HOROVOD_LOCAL_RANK";
inline constexpr const char* kLocalSize = "HOROVOD_LOCAL_SIZE";
inline constexpr const char* kCrossRank = "HOROVOD_CROSS_RANK";
inline constexpr const char* kCrossSize = "HOROVOD_CROSS_SIZE";
inline constexpr const char* kHostname = "HOROVOD_HOSTNAME";
}  // namespace worker_var

// Set per worker by the launcher: -x cannot override them, and hvdrun never forwards its own values of them.
inline constexpr std::array<std::string_view, 13> kReservedEnv = {
    "HOROVOD_RANK",       "HOROVOD_SIZE",     "HOROVOD_LOCAL_RANK", "HOROVOD_LOCAL_SIZE", "HOROVOD_CROSS_RANK",
    "HOROVOD_CROSS_SIZE", "HOROVOD_HOSTNAME", "HVD_STORE_ADDR",     "HVD_SECRET",         "HVD_DATA_ADDR",
    "HOROVOD_ELASTIC",    "HVD_WORKER_ID",    "HVD_ELASTIC_TIMEOUT"};

// Where a worker stands (Horovod's definitions: launcher/plan/plan.h).
struct WorkerPlacement {
  int rank = 0, size = 1, local_rank = 0, local_size = 1, cross_rank = 0, cross_size = 1;
  bool operator==(const WorkerPlacement&) const = default;
};

// A worker of an elastic job (HOROVOD_ELASTIC=1): its stable name and how long hvdrun may take to re-form.
struct ElasticWorker {
  std::string worker_id;               // HVD_WORKER_ID, "<host>/<slot>"
  std::optional<long long> timeout_s;  // HVD_ELASTIC_TIMEOUT, whole seconds
};

using EnvMap = std::map<std::string, std::string>;
using EnvExports = std::vector<std::pair<std::string, std::string>>;

struct WorkerContract {
  std::optional<WorkerPlacement> placement;  // the HOROVOD_RANK family; absent: not placed by a launcher
  std::optional<std::string> hostname;       // HOROVOD_HOSTNAME
  std::optional<std::string> store_addr;     // HVD_STORE_ADDR, host:port of hvdrun's rendezvous store
  std::optional<std::string> secret_hex;     // HVD_SECRET, the job secret in hex
  std::string data_addr;                     // HVD_DATA_ADDR, the data plane's bind address; "" for any
  std::optional<ElasticWorker> elastic;      // HOROVOD_ELASTIC=1, HVD_WORKER_ID, HVD_ELASTIC_TIMEOUT
  EnvExports exports;                        // written only: -x NAME=VALUE, in order, after PYTHONUNBUFFERED=1
};

// Writes the contract over `env`: PYTHONUNBUFFERED=1, then the exports (-x PYTHONUNBUFFERED=0 turns it off), then
// every variable the contract holds, so the contract wins. Unset fields, an empty secret and an empty data
// address are not written (an empty secret keeps it out of the launch frame, which is authenticated but not encrypted).
void write_worker_env(const WorkerContract& contract, EnvMap& env);

// Reads the contract back, checked (exports are not read back). HOROVOD_RANK unset: no placement; set, the rest
// of the family must be consistent with it, else a UsageError naming the variable, as must an elastic set.
WorkerContract read_worker_contract(const env_var::Lookup& env);

}  // namespace hvd
