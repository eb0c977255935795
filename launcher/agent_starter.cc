#include "launcher/agent_starter.h"

#include "common/error.h"

namespace hvd::launcher {
namespace {
bool all_local(const Plan& plan) {
  for (const auto& h : plan.hosts) {
    if (h.name != "localhost" && h.name.rfind("127.", 0) != 0) return false;
  }
  return true;
}
}  // namespace

std::string coordinator_bind_address(const Plan& plan, const LaunchOptions& /*options*/) {
  return all_local(plan) ? "127.0.0.1" : "0.0.0.0";
}

std::unique_ptr<AgentProcess> start_agent(asio::io_context& io, AgentStart start, const Plan& /*plan*/,
                                          const LaunchOptions& /*options*/) {
  start.coordinator_host = "127.0.0.1";
  return start_local_agent(io, std::move(start));
}

}  // namespace hvd::launcher
