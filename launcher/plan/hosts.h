// Host lists for hvdrun: the -H value ("h1:4,user@h2:2,[::1]:2") and hostfiles ("host slots=N", "host:N", "host").
// Both return hosts in the order given, each listed once, each with at least one slot; bad input throws
// hvd::UsageError with one line that names the offending value (and FILE:LINE for hostfiles) and the fix.
// Names are checked here, before anything starts: RFC 1123 host names (labels of 1-63 letters, digits, '-', plus
// '_'; 253 characters in all), dotted-quad IPv4, [IPv6] with an optional %zone, and a 1-32 character user name.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace hvd::launcher {

struct HostSpec {
  std::string user;  // empty: the SSH default (config, then the local user)
  std::string name;  // host name or address; an IPv6 address is stored without brackets
  int slots = 1;

  std::string display() const;  // "user@name:slots" or "name:slots" ("[::1]:2" for IPv6)
  std::string target() const;   // "user@name" or "name"
  bool operator==(const HostSpec&) const = default;
};

// One token: "name", "name:N", "user@name:N", "[v6addr]:N". `where` starts the error message ("-H").
HostSpec parse_host_token(std::string_view token, std::string_view where);

std::vector<HostSpec> parse_host_list(std::string_view text);
std::vector<HostSpec> parse_hostfile(const std::string& path);

int total_slots(const std::vector<HostSpec>& hosts);
std::string describe_hosts(const std::vector<HostSpec>& hosts);  // "h1:2, h2:2"

}  // namespace hvd::launcher
