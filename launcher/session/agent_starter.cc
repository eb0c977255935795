#include "launcher/session/agent_starter.h"

#include <ifaddrs.h>
#include <netdb.h>

#include <memory>

#include "common/error.h"
#include "launcher/plan/local_host.h"
#include "launcher/ssh/ssh_module.h"

namespace hvd::launcher {
namespace {

bool all_local(const Plan& plan) {
  for (const auto& h : plan.hosts) {
    if (!is_local_host(h.name)) return false;
  }
  return true;
}

// The IPv4 address of a named interface (--network-interface), or a UsageError naming the interfaces there are.
std::string interface_address(const std::string& name) {
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) throw Error("cannot list network interfaces");
  std::unique_ptr<ifaddrs, decltype(&freeifaddrs)> guard(list, freeifaddrs);
  std::string seen;
  for (ifaddrs* i = list; i; i = i->ifa_next) {
    if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET) continue;
    if (name == i->ifa_name) {
      char host[NI_MAXHOST];
      ::getnameinfo(i->ifa_addr, sizeof(sockaddr_in), host, sizeof host, nullptr, 0, NI_NUMERICHOST);
      return host;
    }
    seen += (seen.empty() ? "" : ", ") + std::string(i->ifa_name);
  }
  throw UsageError("--network-interface " + name + ": no IPv4 address on such an interface here; have: " + seen);
}

}  // namespace

// The address agents connect back to, when the user chose one; empty: loopback here, the SSH link's own
// local address for remote hosts.
std::string chosen_coordinator_address(const LaunchOptions& options) {
  if (!options.coordinator_addr.empty()) return options.coordinator_addr;
  if (!options.network_interface.empty()) return interface_address(options.network_interface);
  return "";
}

namespace {

const HostSpec& host_spec(const Plan& plan, const std::string& name) {
  for (const auto& h : plan.hosts) {
    if (h.name == name) return h;
  }
  throw Error("no host '" + name + "' in the plan");
}

}  // namespace

std::string coordinator_bind_address(const Plan& plan, const LaunchOptions& options) {
  if (all_local(plan)) return "127.0.0.1";
  return options.coordinator_addr.empty() ? "0.0.0.0" : options.coordinator_addr;
}

std::unique_ptr<AgentProcess> start_agent(asio::io_context& io, AgentStart start, const Plan& plan,
                                          const LaunchOptions& options) {
  const std::string chosen = chosen_coordinator_address(options);
  if (is_local_host(start.host)) {
    // On a job that spans hosts, local workers must advertise an address the others can reach.
    start.coordinator_host = chosen.empty() || all_local(plan) ? "127.0.0.1" : chosen;
    return start_local_agent(io, std::move(start));
  }
  start.coordinator_host = chosen;
  if (!options.agent_path.empty()) start.agent_path = options.agent_path;
  const SshOptions ssh{.port = options.ssh_port,
                       .identity_file = options.ssh_identity_file,
                       .config_file = options.ssh_config,
                       .accept_new = options.ssh_accept_new,
                       .user = {},
                       .connect_timeout_s = options.start_timeout_s};
  const HostSpec& host = host_spec(plan, start.host);  // before `start` is moved into the call
  return start_ssh_agent_from_module(io, std::move(start), host, ssh);
}

}  // namespace hvd::launcher
