// Where hvdrun's coordination server listens, and the address agents connect back to: loopback when every host
// of the plan is this machine, else --coordinator-addr, the address of --network-interface, or (chosen by each
// starter) the address the SSH link or the route to the host shows.
#pragma once

#include <string>

#include "launcher/plan/plan.h"

namespace hvd::launcher {

bool all_local(const Plan& plan);  // every host of the plan is this machine
std::string coordinator_bind_address(const Plan& plan, const std::string& coordinator_addr);
// --coordinator-addr, or the IPv4 address of --network-interface; empty when the user chose neither. A named
// interface that has no IPv4 address here throws a UsageError naming the interfaces there are.
std::string chosen_coordinator_address(const std::string& coordinator_addr, const std::string& network_interface);

}  // namespace hvd::launcher
