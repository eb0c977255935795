#include "launcher/plan/plan.h"

#include <algorithm>

namespace hvd::launcher {

std::vector<int> Plan::ranks_on(const std::string& host) const {
  std::vector<int> ranks;
  for (const auto& slot : slots) {
    if (slot.host == host) ranks.push_back(slot.rank);
  }
  return ranks;
}

void check_plan_fits(const std::vector<HostSpec>& hosts, int np) {
  if (hosts.empty()) throw PlanError("no hosts to place ranks on; give -H or --hostfile");
  for (const auto& host : hosts) {
    if (host.slots < 1) throw PlanError("host " + host.name + " has no slots; give it 1 or more");
  }
  const int total = total_slots(hosts);
  if (np <= 0) np = total;
  if (np > total) {
    throw PlanError("-np " + std::to_string(np) + " but the hosts offer " + std::to_string(total) + " slots (" +
                    describe_hosts(hosts) + "); lower -np or add hosts");
  }
}

Plan make_plan(const std::vector<HostSpec>& hosts, int np) {
  check_plan_fits(hosts, np);
  if (np <= 0) np = total_slots(hosts);
  Plan plan;
  for (const auto& host : hosts) {
    const int placed = std::min(host.slots, np - plan.size());
    if (placed == 0) break;
    plan.hosts.push_back(host);
    plan.hosts.back().slots = placed;
    for (int local = 0; local < placed; ++local) {
      plan.slots.push_back(Slot{host.name, plan.size(), local, placed, 0, 0});
    }
  }
  // The hosts holding local_rank l are those with more than l ranks; counted in host order.
  for (auto& slot : plan.slots) {
    for (const auto& host : plan.hosts) {
      if (host.slots <= slot.local_rank) continue;
      if (host.name == slot.host) slot.cross_rank = slot.cross_size;
      ++slot.cross_size;
    }
  }
  return plan;
}

}  // namespace hvd::launcher
