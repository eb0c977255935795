// hvd-agent's whole program as a function: the hvd-agent executable's main, and hvdrun's local agent, which hvdrun
// forks without exec (launcher/agent_process.cc) and which then never returns to hvdrun's code.
#pragma once

#include <optional>

#include "common/messages/agent_commands.h"

namespace hvd::agent {

// Parses the agent's command line (argv[0] is its name), reads the job secret on stdin and runs the host's workers;
// returns the exit code. first_launch: the launch message a forked agent starts its workers from at once
// (AgentOptions::first_launch); none: it waits for hvdrun's.
int agent_main(int argc, char** argv, std::optional<messages::Launch> first_launch = std::nullopt);

}  // namespace hvd::agent
