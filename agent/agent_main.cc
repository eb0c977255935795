#include "agent/agent_main.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <iostream>

#include "agent/agent.h"
#include "agent/options.h"
#include "agent/peer_check.h"
#include "common/logging.h"

namespace hvd::agent {

int agent_main(int argc, char** argv, std::optional<messages::Launch> first_launch) {
  std::string coordinator, log_level = "warning";
  AgentOptions options;
  options.host = hvd::this_hostname();
  CLI::App app{"hvd-agent: runs one host's workers for hvdrun; the job secret comes on stdin"};
  auto* coordinator_option = app.add_option("--coordinator", coordinator, "hvdrun's coordination server, HOST:PORT");
  app.add_option("--host", options.host, "this host as hvdrun names it (default: the hostname)");
  app.add_option("--log-level", log_level, "trace, debug, info, warning, error or off");
  bool check_peers = false;
  app.add_flag("--check-peers", check_peers, "run as hvdrun --check-hosts' probe worker (data-plane reachability)");
  int connect_timeout_s = 30;
  app.add_option("--connect-timeout", connect_timeout_s, "seconds to keep trying to reach the coordinator")
      ->check(CLI::PositiveNumber);
  try {
    app.parse(argc, argv);
    if (!check_peers && coordinator_option->count() == 0) throw CLI::RequiredError("--coordinator");
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : kExitUsage;
  }
  if (check_peers) {
    try {
      return run_peer_check();
    } catch (const std::exception& e) {
      std::cerr << "hvd-agent --check-peers on " << options.host << ": " << e.what() << std::endl;
      return 1;
    }
  }
  try {
    options.connect_timeout = std::chrono::seconds(connect_timeout_s);
    hvd::setup_logging("hvd-agent", log_level);
    parse_coordinator(coordinator, options);
    read_secret(STDIN_FILENO, options);
    options.first_launch = std::move(first_launch);
  } catch (const hvd::Error& e) {
    std::cerr << "hvd-agent on " << options.host << ": " << e.what() << std::endl;
    return kExitUsage;
  }
  return Agent(std::move(options)).run();
}

}  // namespace hvd::agent
