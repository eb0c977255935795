// Which machine this agent runs on, as one string for hvdrun to compare: two -H names that reach the same machine
// (localhost and 127.0.0.1, a host name and its address) give the same string. Never throws; parts that cannot
// be read are left out.
#pragma once

#include <string>

namespace hvd::agent {

// "boot=<boot_id> machine=<machine-id> netns=<inode>": the kernel's boot id and systemd's machine id name the
// machine; the network namespace tells apart hosts that share a kernel but not a network (containers, and the
// test cluster's namespaces), which hvd treats as hosts of their own.
std::string machine_identity();

}  // namespace hvd::agent
