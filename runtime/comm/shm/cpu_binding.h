// Where the ranks of one host run (HVD_CPU_BIND). Two ranks that share a core exchange through context switches: an
// 8-byte shared-memory allreduce then takes 6-7 us instead of 0.2 us (measured by pinning both ranks of np=2 to
// one CPU, then to two), and the scheduler never separates them by itself, because ranks that wait by yielding or
// sleeping never look busy. But a rank bound to too few cores for the threads it keeps busy squeezes them: a
// training process computes on its framework's intra-op threads while the engine's thread reduces the gradients
// already done, and binding both onto one core of a 2-core host cost a third of a training step. So:
//   auto (default): each local rank takes an equal, disjoint share of this process's CPUs (local rank i: the i-th
//     share, in CPU order) only when the share holds the rank's busy threads (busy_threads()); else no binding.
//   cores: the share whenever it is at least one CPU (mpirun's --bind-to core), whatever the threads.
//   none: placement is left to the operating system (or a binding the user set up).
#pragma once

#include <string>
#include <vector>

#include "runtime/comm/config.h"

namespace hvd::detail {

// The threads one rank keeps busy at once: the compute threads a framework declared (hvd_torch: torch's intra-op
// threads, asked now) plus the engine's thread, which reduces gradients while they compute. With no framework,
// one: the calling thread runs a blocking op's cycle itself (Engine::drive), so the engine's thread idles.
int busy_threads();
// Set by hvd::set_compute_threads_query (hvd.h); null means no framework.
void set_compute_threads_query(int (*query)());

struct CpuPlacement {
  bool bound = false;
  std::vector<int> cpus;  // the CPUs the rank may run on: its share when bound, else every CPU it was allowed
  std::string why;        // one phrase for the log: why bound or not
};

// The decision alone (no system call): `allowed` is the process's CPUs in order.
CpuPlacement decide_cpu_placement(const std::vector<int>& allowed, int local_rank, int local_size, CpuBind mode,
                                  int busy);

// Decides from the CPUs this process was started with (remembered at the first call, so a later generation of an
// elastic job decides afresh) and applies it to the calling thread, and so to every thread it starts later.
CpuPlacement place_on_cpus(int local_rank, int local_size, CpuBind mode);
// What the last place_on_cpus decided, as one line for init's debug log ("" before any): "CPUs 0-1, not bound
// (HVD_CPU_BIND=auto: ...)".
std::string last_cpu_placement();

std::string cpu_list(const std::vector<int>& cpus);

// Whether the engine reduces while the framework computes (HVD_ENGINE_OVERLAP; what it changes: engine.h). auto:
// only when every busy thread (busy_threads(), the engine's included) of the ranks sharing the rank's CPUs has one
// of them; without a spare CPU, each cycle run during the computation takes a core from it.
struct EngineOverlapDecision {
  bool overlap = true;
  std::string why;  // one phrase for the log
};
// The decision alone: `cpus` the rank may use, shared by `sharing` ranks (1 when bound to its own share).
EngineOverlapDecision decide_engine_overlap(EngineOverlap mode, int cpus, int sharing, int busy);
// From this thread's CPUs now and the last place_on_cpus (bound: its share is its own; else all `local_size` ranks
// share them).
EngineOverlapDecision engine_overlap_here(EngineOverlap mode, int local_size);  // "0-3,6" as /proc/PID/status's Cpus_allowed_list

}  // namespace hvd::detail
