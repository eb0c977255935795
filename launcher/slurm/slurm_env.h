// The Slurm allocation hvdrun runs in (under salloc, sbatch or srun), read from the environment Slurm sets:
// SLURM_JOB_ID, SLURM_JOB_NODELIST (compressed: "h[1-3,7]", "pre[01-10]suf", "r[1-2]n[1-2]") and
// SLURM_TASKS_PER_NODE ("2(x3),1"). The parsers are pure; a malformed value throws hvd::UsageError naming the
// variable, the value and the fix.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "launcher/plan/hosts.h"

namespace hvd::launcher {

struct SlurmAllocation {
  std::string job_id;
  std::vector<HostSpec> hosts;  // the allocation's nodes in Slurm's order; slots = its tasks on that node
};

// "h[1-3,7],x" -> h1 h2 h3 h7 x; ranges keep the lower bound's zero padding ("[08-10]" -> 08 09 10).
std::vector<std::string> expand_slurm_nodelist(std::string_view text);
// "2(x3),1" -> 2 2 2 1.
std::vector<int> expand_slurm_tasks_per_node(std::string_view text);

// Empty outside an allocation (no SLURM_JOB_ID or no node list); `environ_` holds "NAME=VALUE" entries.
std::optional<SlurmAllocation> slurm_allocation(const char* const* environ_);

// -H/--hostfile and -np given inside an allocation must fit it: every host a node of it with no more slots than
// its tasks there, and np no more than its tasks in all. Throws UsageError naming the value and the fix.
void check_against_allocation(const std::vector<HostSpec>& hosts, int np, const SlurmAllocation& allocation);

}  // namespace hvd::launcher
