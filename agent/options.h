// Turning hvd-agent's inputs into AgentOptions: the coordinator address from the command line and the job
// secret from the first line of stdin. Both throw hvd::Error with a message that names the bad value.
#pragma once

#include <string>

#include "agent/agent.h"

namespace hvd::agent {

// "host:port" or "[v6addr]:port" into options.coordinator_host/port.
void parse_coordinator(const std::string& text, AgentOptions& options);
// Reads one line of hex from fd byte by byte (nothing past the '\n' is consumed) into options.secret(_hex).
void read_secret(int fd, AgentOptions& options);

}  // namespace hvd::agent
