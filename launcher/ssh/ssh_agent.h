// Starts hvd-agent on another host over SSH (libssh), one thread per host so that hosts start in parallel.
// The thread connects, verifies the host key, authenticates with public keys, runs
//   cd '<launcher cwd>' && exec '<agent>' --coordinator ADDR:PORT --host NAME --log-level L
// writes the job secret and a newline to the agent's stdin and keeps the channel open. The agent's stderr (and
// stdout) lines are copied to hvdrun's stderr prefixed "HOST: ". When start.coordinator_host is empty the agent
// is told to connect back to the local address of this SSH connection.
//
// start.on_ended(reason) is posted onto `io` exactly once, unless this object is destroyed first: when a step
// fails ("h2: connection refused by 198.51.100.12:22: is sshd running there ...", "h2: authentication failed
// ...", "hvd-agent not found or not executable on h2 at /opt/hvd-agent: use --agent-path") or when the agent
// ends ("h2: hvd-agent exited with code 3: <its last stderr line>", "h2: SSH connection lost").
// The destructor closes the channel, so the agent sees EOF on stdin and kills its workers, then joins the thread;
// a step blocked on the network is interrupted at once.
#pragma once

#include <asio.hpp>
#include <memory>

#include "launcher/start/agent_process.h"
#include "launcher/plan/hosts.h"
#include "launcher/ssh/ssh_options.h"

namespace hvd::launcher {

std::unique_ptr<AgentProcess> start_ssh_agent(asio::io_context& io, AgentStart start, const HostSpec& host,
                                              const SshOptions& ssh);

// The shell command run on the remote host (exposed for tests): changes to `cwd`, checks the agent, execs it.
// A missing directory or agent is reported on stderr with the markers ssh_agent.cc recognises.
std::string remote_agent_command(const std::vector<std::string>& agent_argv, const std::string& cwd);

}  // namespace hvd::launcher
