// --host-discovery-script: runs the user's script and reads the hosts it prints, one `host:slots` per line
// (the -H token syntax: `host`, `host:N`, `user@host:N`, `[v6]:N`; blank lines and `#` comments skipped).
// A run is bounded by a timeout (its process group is killed past it); its stderr is relayed line by line.
// The script runs on a thread of its own (blocking reads and waits there, never on the event loop); the
// result is posted to the io_context. Destroying a DiscoveryScript kills a running script and waits for it.
#pragma once

#include <asio.hpp>
#include <chrono>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "launcher/plan/hosts.h"

namespace hvd::launcher::elastic {

// Parses the script's stdout; throws hvd::UsageError naming the line and the fix. `script` names it in errors.
std::vector<HostSpec> parse_discovery_output(const std::string& text, const std::string& script);

struct DiscoveryResult {
  bool ok = false;
  std::vector<HostSpec> hosts;
  std::string error;        // when !ok: names the script and why (exit code, signal, timeout, a bad line)
  bool bad_output = false;  // the script ran fine but printed something that is not host:slots
};

class DiscoveryScript {
 public:
  using Done = std::function<void(DiscoveryResult)>;
  using StderrLine = std::function<void(const std::string& line)>;

  DiscoveryScript(asio::io_context& io, std::string path, std::chrono::milliseconds timeout, StderrLine on_stderr);
  ~DiscoveryScript();
  DiscoveryScript(const DiscoveryScript&) = delete;
  DiscoveryScript& operator=(const DiscoveryScript&) = delete;

  // Starts one run unless one is under way; `done` is called on the io_context's thread.
  void run(Done done);
  bool running() const { return running_; }

 private:
  DiscoveryResult run_blocking();

  asio::io_context& io_;
  std::string path_;
  std::chrono::milliseconds timeout_;
  StderrLine on_stderr_;
  std::jthread thread_;
  bool running_ = false;  // event-loop thread only
  std::mutex mutex_;      // guards child_pgid_ and stopping_
  int child_pgid_ = -1;
  bool stopping_ = false;
};

}  // namespace hvd::launcher::elastic
