#include "launcher/plan/same_machine.h"

namespace hvd::launcher {

std::string same_machine_problem(const std::vector<HostSpec>& hosts, const std::vector<std::string>& machines) {
  for (std::size_t i = 0; i < hosts.size() && i < machines.size(); ++i) {
    if (machines[i].empty()) continue;
    for (std::size_t j = i + 1; j < hosts.size() && j < machines.size(); ++j) {
      if (machines[j] != machines[i]) continue;
      HostSpec merged = hosts[i];
      merged.slots += hosts[j].slots;
      return "the hosts list one machine twice: '" + hosts[i].name + "' and '" + hosts[j].name +
             "' reach the same machine (same boot id, machine id and network namespace), so both would number " +
             "their ranks from local rank 0; list it once with all its slots (" + merged.display() + ")";
    }
  }
  return {};
}

}  // namespace hvd::launcher
