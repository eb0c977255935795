#include "runtime/comm/tcp/listener.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>

#include "common/address.h"
#include "hvd/error.h"

namespace hvd::detail {
namespace {
std::string first_non_loopback_ipv4() {
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return "127.0.0.1";
  std::string found = "127.0.0.1";
  for (ifaddrs* i = list; i; i = i->ifa_next) {
    if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || (i->ifa_flags & IFF_LOOPBACK) ||
        !(i->ifa_flags & IFF_UP)) {
      continue;
    }
    char buf[INET_ADDRSTRLEN];
    ::inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(i->ifa_addr)->sin_addr, buf, sizeof buf);
    found = buf;
    break;
  }
  ::freeifaddrs(list);
  return found;
}
}  // namespace

TcpListener::TcpListener(const std::string& bind_address) {
  fd_ = UniqueFd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd_.valid())
    throw Error(ErrorKind::kBackend, std::string("data-plane listener: socket: ") + std::strerror(errno));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = 0;
  if (bind_address.empty()) {
    addr.sin_addr.s_addr = htonl(INADDR_ANY);
  } else if (::inet_pton(AF_INET, bind_address.c_str(), &addr.sin_addr) != 1) {
    const Resolved found = resolve(bind_address, 0, {.family = AF_INET});
    if (!found) {
      throw Error(ErrorKind::kUsage, "data-plane address '" + bind_address +
                  "' is neither an IPv4 address nor a resolvable host name; set HVD_DATA_ADDR to this host's IP");
    }
    addr.sin_addr = reinterpret_cast<const sockaddr_in*>(found.list->ai_addr)->sin_addr;
  }
  if (::bind(fd_.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(fd_.get(), 256) != 0) {
    throw Error(ErrorKind::kBackend, "data-plane listener on '" +
                                         (bind_address.empty() ? std::string("*") : bind_address) +
                                         "': " + std::strerror(errno));
  }
  socklen_t len = sizeof addr;
  ::getsockname(fd_.get(), reinterpret_cast<sockaddr*>(&addr), &len);
  char bound[INET_ADDRSTRLEN];
  ::inet_ntop(AF_INET, &addr.sin_addr, bound, sizeof bound);
  address_ = (bind_address.empty() ? first_non_loopback_ipv4() : std::string(bound)) + ":" +
             std::to_string(ntohs(addr.sin_port));
}

UniqueFd TcpListener::accept(std::chrono::milliseconds timeout) {
  pollfd p{fd_.get(), POLLIN, 0};
  int rc;
  do {
    rc = ::poll(&p, 1, static_cast<int>(timeout.count()));
  } while (rc < 0 && errno == EINTR);
  if (rc == 0)
    throw Error(ErrorKind::kBackend, "data-plane listener " + address_ + ": no peer connected within " +
                                         std::to_string(timeout.count()) + " ms");
  UniqueFd fd(::accept4(fd_.get(), nullptr, nullptr, SOCK_CLOEXEC));
  if (!fd.valid())
    throw Error(ErrorKind::kBackend, "data-plane listener " + address_ + ": accept: " + std::strerror(errno));
  return fd;
}

void tune_link_socket(int fd) {
  int one = 1, idle = 2, interval = 1, count = 3;
  unsigned user_timeout_ms = 8000;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  ::setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &interval, sizeof interval);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &count, sizeof count);
  ::setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &user_timeout_ms, sizeof user_timeout_ms);
}

}  // namespace hvd::detail
