#include "common/address.h"

#include <netdb.h>
#include <sys/socket.h>

#include <charconv>

#include "common/error.h"

namespace hvd {
namespace {

[[noreturn]] void not_host_port(std::string_view text, std::string_view what) {
  throw UsageError(std::string(what) + " '" + std::string(text) + "' is not HOST:PORT (e.g. 10.0.0.1:4000)");
}

}  // namespace

std::string Address::to_string() const {
  const bool v6 = host.find(':') != std::string::npos;
  return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

Address parse_address(std::string_view text, std::string_view what) {
  Address address;
  std::string_view port;
  if (text.starts_with('[')) {
    const auto close = text.find("]:");
    if (close == std::string_view::npos || close == 1) not_host_port(text, what);
    address.host = text.substr(1, close - 1);
    port = text.substr(close + 2);
  } else {
    const auto colon = text.rfind(':');
    if (colon == std::string_view::npos || colon == 0) not_host_port(text, what);
    address.host = text.substr(0, colon);
    port = text.substr(colon + 1);
  }
  if (port.empty()) not_host_port(text, what);
  auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), address.port);
  if (ec != std::errc() || end != port.data() + port.size() || address.port < 1 || address.port > 65535) {
    throw UsageError(std::string(what) + " '" + std::string(text) + "': the port must be a number from 1 to 65535");
  }
  return address;
}

std::string host_of(std::string_view text) {
  if (text.starts_with('[')) {
    const auto close = text.find(']');
    if (close != std::string_view::npos) return std::string(text.substr(1, close - 1));
  }
  const auto colon = text.rfind(':');
  return std::string(colon == std::string_view::npos ? text : text.substr(0, colon));
}

void AddrinfoFree::operator()(addrinfo* list) const { ::freeaddrinfo(list); }

Resolved resolve(const std::string& host, int port, const ResolveHints& hints) {
  addrinfo want{};
  want.ai_family = hints.family;
  want.ai_socktype = hints.socktype;
  want.ai_flags = hints.numeric_only ? AI_NUMERICHOST : 0;
  const std::string service = port > 0 ? std::to_string(port) : "";
  addrinfo* found = nullptr;
  const int rc = ::getaddrinfo(host.c_str(), port > 0 ? service.c_str() : nullptr, &want, &found);
  Resolved resolved;
  if (rc != 0 || found == nullptr) {
    resolved.error = rc != 0 ? ::gai_strerror(rc) : "no address";
    return resolved;
  }
  resolved.list.reset(found);
  return resolved;
}

}  // namespace hvd
