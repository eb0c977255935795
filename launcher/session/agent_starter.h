// Chooses how each host's agent starts: a plain child process on this machine, SSH elsewhere; and which
// address the coordination server listens on (loopback when every host is this one).
#pragma once

#include <asio.hpp>
#include <memory>
#include <string>

#include "launcher/session/agent_process.h"
#include "launcher/cli/options.h"
#include "launcher/plan/plan.h"

namespace hvd::launcher {

std::string coordinator_bind_address(const Plan& plan, const LaunchOptions& options);
// --coordinator-addr, or the address of --network-interface; empty when the user chose neither.
std::string chosen_coordinator_address(const LaunchOptions& options);
std::unique_ptr<AgentProcess> start_agent(asio::io_context& io, AgentStart start, const Plan& plan,
                                          const LaunchOptions& options);

}  // namespace hvd::launcher
