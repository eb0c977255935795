// One host:port, as every hvd program writes and reads it: "h1:4000", "10.0.0.1:4000", "[fe80::1]:4000".
// parse_address is the one parser (an IPv6 host in brackets; the brackets are not part of `host`), to_string the
// one printer (brackets back around a host holding ':'), and resolve the one caller of getaddrinfo.
#pragma once

#include <sys/socket.h>

#include <memory>
#include <string>
#include <string_view>

struct addrinfo;

namespace hvd {

struct Address {
  std::string host;  // a name, an IPv4 address or an IPv6 address, without brackets
  int port = 0;      // 1..65535 once parsed

  std::string to_string() const;
  bool operator==(const Address&) const = default;
};

// "host:port" or "[v6]:port", port 1 to 65535. `what` names the value in the error, a UsageError:
// "--coordinator 'x' is not HOST:PORT (e.g. 10.0.0.1:4000)".
Address parse_address(std::string_view text, std::string_view what);
// The host part of "host:port" (no brackets), or the whole text when it has no port: for logs keyed by peer.
std::string host_of(std::string_view text);

struct AddrinfoFree {
  void operator()(addrinfo* list) const;
};
using AddrinfoList = std::unique_ptr<addrinfo, AddrinfoFree>;

// What getaddrinfo answered: the list (walk it with ai_next), or why the name did not resolve.
struct Resolved {
  AddrinfoList list;
  std::string error;  // gai_strerror's text when `list` is empty
  explicit operator bool() const { return list != nullptr; }
};

struct ResolveHints {
  int family = AF_UNSPEC;
  int socktype = SOCK_STREAM;
  bool numeric_only = false;
};

// Resolves `host` (and `port` when above 0); never throws: callers word the failure for their context.
Resolved resolve(const std::string& host, int port = 0, const ResolveHints& hints = {});

}  // namespace hvd
