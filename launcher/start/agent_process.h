// A running hvd-agent for one host, started by hvdrun: on this host a child process (hvdrun forked, running the
// agent's code without exec while hvdrun has one thread; else hvd-agent exec'd), elsewhere a command executed over
// SSH. The job secret is written to the agent's stdin, never put on a command line. The agent
// watches its stdin: when it closes (this object destroyed, hvdrun killed, SSH link lost), the agent kills its
// workers and exits.
#pragma once

#include <asio.hpp>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/address.h"
#include "common/messages/agent_commands.h"

namespace hvd::launcher {

struct AgentStart {
  std::string host;              // the host as the user named it ("h1", "user@h1"); shown in errors
  std::string agent_path;        // absolute path of hvd-agent on that host
  std::string coordinator_host;  // address the agent connects back to; empty: chosen by the starter
  int coordinator_port = 0;
  std::string secret_hex;
  std::string log_level = "warning";
  // Called on the io_context's thread, at most once, when the agent could not start or ended: the reason
  // names the host and the cause ("h2: connection refused", "h2: hvd-agent exited with code 127: ...").
  std::function<void(const std::string& reason)> on_ended;
  // The local agent's launch message when hvdrun knows it before the agent connects (one host, this one): a
  // forked agent starts its workers from it at once (issue 12: the handshake's round trips leave the critical
  // path). None, or not taken (took_first_launch()): hvdrun sends it once the agent has connected.
  std::optional<messages::Launch> first_launch;
};

class AgentProcess {
 public:
  virtual ~AgentProcess() = default;  // stops the agent: closes its stdin; a local child is also reaped
  virtual const std::string& host() const = 0;
  // Whether the agent started its workers from AgentStart::first_launch, so that no launch message is due.
  virtual bool took_first_launch() const { return false; }
};

// The command line hvdrun runs for an agent (no secret in it). Inline: the SSH module (ssh/ssh_module.h) uses it
// without linking hvdrun's code.
inline std::vector<std::string> agent_command(const AgentStart& start) {
  return {start.agent_path, "--coordinator", Address{start.coordinator_host, start.coordinator_port}.to_string(),
          "--host",         start.host,      "--log-level",
          start.log_level};
}

std::unique_ptr<AgentProcess> start_local_agent(asio::io_context& io, AgentStart start);

}  // namespace hvd::launcher
