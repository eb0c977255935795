// The export of hvd-ssh.so that hvdrun looks up (ssh_module.h).
#include <openssl/rand.h>

#include "common/logging.h"
#include "launcher/ssh/ssh_agent.h"
#include "launcher/ssh/ssh_module.h"

extern "C" __attribute__((visibility("default"))) hvd::launcher::StartSshAgentFn hvd_ssh_start_agent_v2(
    const char* log_level) {
  hvd::setup_logging("hvdrun", log_level);
  // OpenSSL sets itself up (configuration, providers, the random generator) on first use. Done here, on hvdrun's
  // thread before any host's starter thread runs, it is paid once; left to the threads, one of them paid ~40 ms
  // more in its SSH handshake while the others waited for it (2 hosts: 150 -> 195 ms).
  unsigned char warm[8];
  RAND_bytes(warm, sizeof warm);
  return &hvd::launcher::start_ssh_agent;
}
