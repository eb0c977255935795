// The environment hvdrun gives each worker: the HOROVOD_* placement contract, the rendezvous address and secret
// (names in common/protocol.h), PYTHONUNBUFFERED=1 and the -x exports. worker_env returns only these variables,
// set on top of what the worker inherits; forwarded_env picks what a REMOTE host inherits from hvdrun.
#pragma once

#include <array>
#include <map>
#include <string>
#include <string_view>

#include "launcher/cli/options.h"
#include "launcher/plan/plan.h"

namespace hvd::launcher {

using EnvMap = std::map<std::string, std::string>;

// Set per rank by hvdrun; -x cannot override them and they are never forwarded from hvdrun's own environment.
inline constexpr std::array<std::string_view, 13> kReservedEnv = {
    "HOROVOD_RANK",       "HOROVOD_SIZE",     "HOROVOD_LOCAL_RANK", "HOROVOD_LOCAL_SIZE", "HOROVOD_CROSS_RANK",
    "HOROVOD_CROSS_SIZE", "HOROVOD_HOSTNAME", "HVD_STORE_ADDR",     "HVD_SECRET",         "HVD_DATA_ADDR",
    "HOROVOD_ELASTIC",    "HVD_WORKER_ID",    "HVD_ELASTIC_TIMEOUT"};

// What remote workers inherit from hvdrun's environment: exact names, and prefixes ending in '*'.
// docs/hvdrun.md ("Many hosts") documents this list; keep them in step.
inline constexpr std::array<std::string_view, 16> kForwardedEnv = {
    "PATH",   "LD_LIBRARY_PATH", "LANG",  "LANGUAGE", "LC_*",    "TZ",     "HOROVOD_*", "HVD_*",
    "NCCL_*", "OMP_*",           "MKL_*", "CUDA_*",   "PYTHON*", "GLOO_*", "UCX_*",     "TORCH_*"};

bool is_reserved_env(std::string_view name);
bool is_forwarded_env(std::string_view name);

// What every worker gets, static or elastic: PYTHONUNBUFFERED, the -x exports, the store, secret and data address.
EnvMap common_worker_env(const LaunchOptions& options, const std::string& store_addr, const std::string& secret_hex,
                         const std::string& data_addr);
// common_worker_env plus the static placement (the HOROVOD_RANK family).
EnvMap worker_env(const Slot& slot, int size, const LaunchOptions& options, const std::string& store_addr,
                  const std::string& secret_hex, const std::string& data_addr);

EnvMap forwarded_env(const char* const* environ_);

// Like torchrun: when ranks share a host and neither hvdrun's environment nor -x sets OMP_NUM_THREADS, the workers
// get OMP_NUM_THREADS=1 (added to options.exports), so each rank's intra-op pool does not spread over every core
// of the host the ranks share. Returns the one line hvdrun prints at start when it did, else "". Hosts sharing is
// read from the plan (static jobs) or the -H/--hostfile slots (elastic jobs without a discovery script).
std::string default_omp_threads(LaunchOptions& options, const char* const* environ_);

}  // namespace hvd::launcher
