// Decides whether a host named in -H/--hostfile is this machine, so its agent runs as a plain child process
// instead of over SSH. Local: "localhost", 127.0.0.0/8, ::1, this machine's hostname (short or full), any
// address of its network interfaces, and any name that resolves to one of those. A name that does not resolve
// is not local (the SSH start then reports it).
#pragma once

#include <string>
#include <vector>

namespace hvd::launcher {

bool is_local_host(const std::string& name);

// The numeric addresses of this machine's interfaces (getifaddrs), IPv6 without scope; for tests and errors.
std::vector<std::string> local_interface_addresses();

}  // namespace hvd::launcher
