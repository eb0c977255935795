// hvd-agent's whole program as a function: the hvd-agent executable's main, and hvdrun's local agent, which hvdrun
// forks without exec (launcher/agent_process.cc) and which then never returns to hvdrun's code.
#pragma once

namespace hvd::agent {

// Parses the agent's command line (argv[0] is its name), reads the job secret on stdin and runs the host's workers;
// returns the exit code.
int agent_main(int argc, char** argv);

}  // namespace hvd::agent
