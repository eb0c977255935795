// hvd-agent: started by hvdrun, one per host; reads the job secret on stdin and runs that host's workers.
#include "agent/agent_main.h"

int main(int argc, char** argv) { return hvd::agent::agent_main(argc, argv); }
