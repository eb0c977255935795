#include "launcher/start/coordinator_address.h"

#include <ifaddrs.h>
#include <netdb.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "common/error.h"
#include "launcher/plan/local_host.h"

namespace hvd::launcher {
namespace {

// The IPv4 address of a named interface (--network-interface), or a UsageError naming the interfaces there are.
std::string interface_address(const std::string& name) {
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) {
    throw Error(ErrorKind::kBackend, std::string("cannot list network interfaces: ") + std::strerror(errno));
  }
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

bool all_local(const Plan& plan) {
  for (const auto& h : plan.hosts) {
    if (!is_local_host(h.name)) return false;
  }
  return true;
}

// The address agents connect back to, when the user chose one; empty: loopback here, the SSH link's own
// local address for remote hosts.
std::string chosen_coordinator_address(const std::string& coordinator_addr, const std::string& network_interface) {
  if (!coordinator_addr.empty()) return coordinator_addr;
  if (!network_interface.empty()) return interface_address(network_interface);
  return "";
}

std::string coordinator_bind_address(const Plan& plan, const std::string& coordinator_addr) {
  if (all_local(plan)) return "127.0.0.1";
  return coordinator_addr.empty() ? "0.0.0.0" : coordinator_addr;
}

}  // namespace hvd::launcher
