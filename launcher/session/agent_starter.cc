#include "launcher/session/agent_starter.h"

#include <memory>

#include "common/error.h"
#include "launcher/plan/local_host.h"
#include "launcher/start/coordinator_address.h"
#include "launcher/ssh/ssh_module.h"

namespace hvd::launcher {
namespace {

const HostSpec& host_spec(const Plan& plan, const std::string& name) {
  for (const auto& h : plan.hosts) {
    if (h.name == name) return h;
  }
  throw Error(ErrorKind::kInternal, "no host '" + name + "' in the plan");  // start_agent's hosts come from it
}

}  // namespace

std::unique_ptr<AgentProcess> start_agent(asio::io_context& io, AgentStart start, const Plan& plan,
                                          const SessionOptions& options) {
  const std::string chosen = chosen_coordinator_address(options.coordinator_addr, options.network_interface);
  if (is_local_host(start.host)) {
    // On a job that spans hosts, local workers must advertise an address the others can reach.
    start.coordinator_host = chosen.empty() || all_local(plan) ? "127.0.0.1" : chosen;
    return start_local_agent(io, std::move(start));
  }
  start.coordinator_host = chosen;
  if (!options.agent_path.empty()) start.agent_path = options.agent_path;
  const HostSpec& host = host_spec(plan, start.host);  // before `start` is moved into the call
  return start_ssh_agent_from_module(io, std::move(start), host, options.ssh);
}

}  // namespace hvd::launcher
