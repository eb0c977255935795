// What hvdrun puts in each worker's environment besides the worker contract (common/worker_contract.h): a
// planned rank's contract, and the variables a REMOTE host inherits from hvdrun (forwarded_env).
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "common/worker_contract.h"
#include "launcher/plan/plan.h"

namespace hvd::launcher {

using hvd::EnvExports;
using hvd::EnvMap;

// What remote workers inherit from hvdrun's environment: exact names, and prefixes ending in '*'.
// docs/hvdrun.md ("Many hosts") documents this list; keep them in step.
inline constexpr std::array<std::string_view, 16> kForwardedEnv = {
    "PATH",   "LD_LIBRARY_PATH", "LANG",  "LANGUAGE", "LC_*",    "TZ",     "HOROVOD_*", "HVD_*",
    "NCCL_*", "OMP_*",           "MKL_*", "CUDA_*",   "PYTHON*", "GLOO_*", "UCX_*",     "TORCH_*"};

bool is_reserved_env(std::string_view name);  // in hvd::kReservedEnv: set per worker, never by -x
bool is_forwarded_env(std::string_view name);

// A statically planned rank's part of the contract: its placement and host name. The session adds the store, data
// address and exports before writing it.
WorkerContract planned_contract(const Slot& slot, int size);

EnvMap forwarded_env(const char* const* environ_);

// Like torchrun: when ranks share a host and neither hvdrun's environment nor -x sets OMP_NUM_THREADS, the workers
// get OMP_NUM_THREADS=1 (added to `exports`), so each rank's intra-op pool does not spread over every core of the
// host the ranks share. Returns the one line hvdrun prints at start when it did, else "". `hosts` are the hosts
// with their ranks (a static job's plan, an elastic job's -H/--hostfile slots; none when a script discovers them).
std::string default_omp_threads(EnvExports& exports, const std::vector<HostSpec>& hosts, const char* const* environ_);

}  // namespace hvd::launcher
