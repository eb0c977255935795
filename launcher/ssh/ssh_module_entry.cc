// The export of hvd-ssh.so that hvdrun looks up (ssh_module.h).
#include "launcher/ssh/ssh_agent.h"
#include "launcher/ssh/ssh_module.h"

extern "C" __attribute__((visibility("default"))) hvd::launcher::StartSshAgentFn hvd_ssh_start_agent_v1() {
  return &hvd::launcher::start_ssh_agent;
}
