#include "launcher/plan/local_host.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <memory>

#include "common/address.h"
#include "common/logging.h"

namespace hvd::launcher {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

std::string numeric(const sockaddr* sa) {
  char text[INET6_ADDRSTRLEN] = {};
  if (sa->sa_family == AF_INET) {
    ::inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(sa)->sin_addr, text, sizeof text);
  } else if (sa->sa_family == AF_INET6) {
    ::inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(sa)->sin6_addr, text, sizeof text);
  }
  return text;
}

bool is_loopback(const sockaddr* sa) {
  if (sa->sa_family == AF_INET) {
    return (ntohl(reinterpret_cast<const sockaddr_in*>(sa)->sin_addr.s_addr) >> 24) == 127;
  }
  if (sa->sa_family == AF_INET6) {
    const in6_addr& a = reinterpret_cast<const sockaddr_in6*>(sa)->sin6_addr;
    if (IN6_IS_ADDR_LOOPBACK(&a)) return true;
    return IN6_IS_ADDR_V4MAPPED(&a) && a.s6_addr[12] == 127;  // ::ffff:127.x.y.z
  }
  return false;
}

// An IPv4-mapped IPv6 address compares as its IPv4 form.
std::string canonical(const sockaddr* sa) {
  if (sa->sa_family == AF_INET6) {
    const in6_addr& a = reinterpret_cast<const sockaddr_in6*>(sa)->sin6_addr;
    if (IN6_IS_ADDR_V4MAPPED(&a)) {
      char text[INET_ADDRSTRLEN] = {};
      ::inet_ntop(AF_INET, &a.s6_addr[12], text, sizeof text);
      return text;
    }
  }
  return numeric(sa);
}

bool any_local(const addrinfo* list, const std::vector<std::string>& mine) {
  for (const addrinfo* ai = list; ai != nullptr; ai = ai->ai_next) {
    if (is_loopback(ai->ai_addr)) return true;
    if (std::find(mine.begin(), mine.end(), canonical(ai->ai_addr)) != mine.end()) return true;
  }
  return false;
}

}  // namespace

std::vector<std::string> local_interface_addresses() {
  std::vector<std::string> out;
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return out;
  std::unique_ptr<ifaddrs, void (*)(ifaddrs*)> guard(list, ::freeifaddrs);
  for (const ifaddrs* i = list; i != nullptr; i = i->ifa_next) {
    if (i->ifa_addr == nullptr) continue;
    if (i->ifa_addr->sa_family != AF_INET && i->ifa_addr->sa_family != AF_INET6) continue;
    out.push_back(canonical(i->ifa_addr));
  }
  return out;
}

bool is_local_host(const std::string& raw_name) {
  std::string name = lower(raw_name);
  if (name.size() >= 2 && name.front() == '[' && name.back() == ']') name = name.substr(1, name.size() - 2);
  if (auto pct = name.find('%'); pct != std::string::npos) name.resize(pct);  // fe80::1%eth0
  if (name.empty()) return false;
  if (name == "localhost" || name.ends_with(".localhost") || name == "localhost.localdomain") return true;

  const std::vector<std::string> mine = local_interface_addresses();
  if (auto literal = resolve(name, 0, {.numeric_only = true})) return any_local(literal.list.get(), mine);

  const std::string host = lower(this_hostname());
  if (name == host) return true;
  if (auto dot = host.find('.'); dot != std::string::npos && name == host.substr(0, dot)) return true;
  if (auto resolved = resolve(name)) return any_local(resolved.list.get(), mine);
  return false;
}

}  // namespace hvd::launcher
