// One machine under two names in the host list (localhost and 127.0.0.1, a host name and its address): each
// agent reports its machine identity (agent/machine_identity.h) and the job is refused before any worker starts,
// since both "hosts" would number their ranks from local_rank 0 (two ranks on GPU 0, two shared-memory groups).
#pragma once

#include <string>
#include <vector>

#include "launcher/plan/hosts.h"

namespace hvd::launcher {

// `machines[i]` is the identity the agent of `hosts[i]` reported ("" when it reported none: never matched).
// Empty when every host is its own machine; else one line naming both names and the fix, e.g.
// "-H lists one machine twice: 'localhost' and '127.0.0.1' reach the same machine; list it once with all its
// slots (localhost:2)".
std::string same_machine_problem(const std::vector<HostSpec>& hosts, const std::vector<std::string>& machines);

}  // namespace hvd::launcher
