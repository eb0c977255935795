// hvdrun reaches the SSH starter (ssh_agent.h) through a module of its own, hvd-ssh.so, loaded the first time a
// remote host needs it: libssh and the Kerberos libraries it pulls in cost every hvdrun ~0.7 ms at start (issue 12),
// and most jobs never leave this machine. The module lies beside hvdrun: <bin>/../lib/hvd/ in the build tree,
// <bin>/<the relative path to LIBDIR/hvd> once installed.
#pragma once

#include <asio.hpp>
#include <memory>

#include "launcher/plan/hosts.h"
#include "launcher/start/agent_process.h"
#include "launcher/ssh/ssh_options.h"

namespace hvd::launcher {

// The module's one export, looked up by name: it sets the module's logging up at hvdrun's level (the module has
// its own spdlog, compiled in) and returns start_ssh_agent. The name carries the interface version.
// Two C++ runtimes meet here: hvdrun's, linked in statically, and the libstdc++.so the module loads. What crosses
// (std::string, std::function, asio's io_context, exceptions, unique_ptr<AgentProcess> deleted through its virtual
// destructor) has one layout, both being built by one compiler in one build, and both allocate with malloc.
using StartSshAgentFn = std::unique_ptr<AgentProcess> (*)(asio::io_context& io, AgentStart start, const HostSpec& host,
                                                          const SshOptions& ssh);
using SshModuleEntryFn = StartSshAgentFn (*)(const char* log_level);
inline constexpr const char* kSshModuleEntry = "hvd_ssh_start_agent_v2";

// Loads the module (already loaded: a reference more, never unloaded: its agents run its code) and starts the
// agent through it. Throws hvd::Error naming every path tried and why, when no module can be loaded.
std::unique_ptr<AgentProcess> start_ssh_agent_from_module(asio::io_context& io, AgentStart start, const HostSpec& host,
                                                          const SshOptions& ssh);

}  // namespace hvd::launcher
