#include "runtime/comm/shm/cpu_binding.h"

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <optional>

namespace hvd::detail {
namespace {

std::atomic<int (*)()> compute_threads_query{nullptr};
std::mutex placement_mutex;
std::optional<std::vector<int>> started_with;  // guarded by placement_mutex
std::string last_placement;                    // guarded by placement_mutex
bool last_bound = false;                       // guarded by placement_mutex

std::optional<std::vector<int>> affinity_of_this_thread() {
  cpu_set_t allowed;
  if (::sched_getaffinity(0, sizeof allowed, &allowed) != 0) return std::nullopt;
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &allowed)) cpus.push_back(c);
  return cpus;
}

bool set_affinity(const std::vector<int>& cpus) {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  for (int c : cpus) CPU_SET(c, &mask);
  return ::sched_setaffinity(0, sizeof mask, &mask) == 0;
}

std::string threads_phrase(int busy) {
  return std::to_string(busy) + (busy == 1 ? " busy thread" : " busy threads");
}

}  // namespace

void set_compute_threads_query(int (*query)()) { compute_threads_query.store(query); }

int busy_threads() {
  auto* query = compute_threads_query.load();
  if (query == nullptr) return 1;
  return std::max(1, query()) + 1;
}

CpuPlacement decide_cpu_placement(const std::vector<int>& allowed, int local_rank, int local_size, CpuBind mode,
                                  int busy) {
  CpuPlacement p;
  p.cpus = allowed;
  const int share = local_size > 0 ? static_cast<int>(allowed.size()) / local_size : 0;
  if (mode == CpuBind::kNone) {
    p.why = "HVD_CPU_BIND=none";
  } else if (local_size < 2) {
    p.why = "the only rank on its host";
  } else if (share < 1) {
    p.why = std::to_string(local_size) + " ranks share " + std::to_string(allowed.size()) + " CPUs";
  } else if (mode == CpuBind::kAuto && share < busy) {
    p.why = "HVD_CPU_BIND=auto: a share of " + std::to_string(share) + " CPU(s) is too few for " +
            threads_phrase(busy);
  } else {
    p.bound = true;
    p.cpus.assign(allowed.begin() + local_rank * share, allowed.begin() + (local_rank + 1) * share);
    p.why = mode == CpuBind::kCores ? "HVD_CPU_BIND=cores"
                                    : "HVD_CPU_BIND=auto: " + threads_phrase(busy) + " fit a share of " +
                                          std::to_string(share) + " CPU(s)";
  }
  return p;
}

CpuPlacement place_on_cpus(int local_rank, int local_size, CpuBind mode) {
  std::lock_guard lock(placement_mutex);
  if (!started_with) started_with = affinity_of_this_thread();
  CpuPlacement placement{false, {}, "the CPU mask could not be read"};
  if (started_with && !started_with->empty()) {
    placement = decide_cpu_placement(*started_with, local_rank, local_size, mode, busy_threads());
    // Unbound, a rank gets back every CPU it started with (an earlier elastic generation may have bound it).
    if (mode != CpuBind::kNone && !set_affinity(placement.cpus)) {
      placement = {false, affinity_of_this_thread().value_or(std::vector<int>{}), "sched_setaffinity failed"};
    }
  }
  last_bound = placement.bound;
  last_placement = "CPUs " + cpu_list(placement.cpus) + (placement.bound ? ", bound (" : ", not bound (") +
                   placement.why + ")";
  return placement;
}

std::string last_cpu_placement() {
  std::lock_guard lock(placement_mutex);
  return last_placement;
}

EngineOverlapDecision decide_engine_overlap(EngineOverlap mode, int cpus, int sharing, int busy) {
  if (mode == EngineOverlap::kOn) return {true, "HVD_ENGINE_OVERLAP=on"};
  if (mode == EngineOverlap::kOff) return {false, "HVD_ENGINE_OVERLAP=off"};
  const std::string load = std::to_string(sharing) + (sharing == 1 ? " rank x " : " ranks x ") +
                           threads_phrase(busy) + " on " + std::to_string(cpus) + (cpus == 1 ? " CPU" : " CPUs");
  if (cpus >= sharing * busy) return {true, "HVD_ENGINE_OVERLAP=auto: a CPU for every busy thread, " + load};
  return {false, "HVD_ENGINE_OVERLAP=auto: no spare CPU, " + load};
}

EngineOverlapDecision engine_overlap_here(EngineOverlap mode, int local_size) {
  const auto cpus = affinity_of_this_thread().value_or(std::vector<int>{});
  bool bound = false;
  {
    std::lock_guard lock(placement_mutex);
    bound = last_bound;
  }
  return decide_engine_overlap(mode, static_cast<int>(cpus.size()), bound ? 1 : std::max(1, local_size),
                               busy_threads());
}

std::string cpu_list(const std::vector<int>& cpus) {
  std::string out;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(cpus[i]);
    if (j > i) out += '-' + std::to_string(cpus[j]);
    i = j + 1;
  }
  return out;
}

}  // namespace hvd::detail
