// The job's agents, one record per started agent (an elastic job may start a host's agent again after one ended):
// how it was started, its link, what its hello reported, and the output credit it is owed. The session decides
// what happens to them; the fleet keeps their records and does what concerns all of them at once (heartbeats,
// "terminate" to every live agent, closing every link).
#pragma once

#include <chrono>
#include <cstddef>
#include <deque>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/framed_connection.h"
#include "launcher/start/agent_process.h"

namespace hvd::launcher {

struct FleetAgent {
  int index = 0;  // in the fleet: the owner of its output's credit, stable while the fleet lives
  std::string host;
  std::vector<int> ranks;  // its ranks (static) or worker ids (elastic)
  std::unique_ptr<AgentProcess> process;
  std::shared_ptr<FramedConnection> link;
  std::chrono::steady_clock::time_point last_heard;
  std::string failure;         // why it could not start, if it could not
  std::string machine;         // the identity its hello reported (plan/same_machine.h)
  bool done = false;           // said bye, or its link is gone
  std::size_t credit_due = 0;  // output written out, not yet credited back
  bool elastic_told = false;   // the elastic job heard that this agent is gone

  bool live() const { return link && link->open() && !done; }
};

class AgentFleet {
 public:
  FleetAgent& add(const std::string& host);
  FleetAgent& at(int index) { return agents_.at(static_cast<std::size_t>(index)); }
  // The host's current agent: the last one started for it that is not done, else its last one; null if none.
  FleetAgent* find(const std::string& host);
  std::size_t size() const { return agents_.size(); }
  auto begin() { return agents_.begin(); }
  auto end() { return agents_.end(); }
  auto begin() const { return agents_.begin(); }
  auto end() const { return agents_.end(); }

  bool all_linked() const;
  bool all_done() const;
  std::vector<std::string> connected_hosts() const;
  std::vector<std::string> machines() const;  // in the fleet's order
  // Once every agent has connected or failed: the failures joined by "; " ("" when none); before, std::nullopt.
  std::optional<std::string> start_failures() const;
  // The hosts whose agent has not connected, each with its failure if it has one: "h1, h2 (connection refused)".
  std::string unconnected() const;

  // Sends `message` to every live agent.
  void send_to_live(const nlohmann::json& message);
  // One heartbeat: to every live agent, after closing the link of any not heard from for kHeartbeatTimeout.
  void heartbeat();
  // Closes every link and stops every agent (its stdin closed): each kills what is left of its workers and exits.
  void close_all(const std::string& reason);

 private:
  std::deque<FleetAgent> agents_;  // a deque: records stay put as agents are added, and handlers hold references
};

}  // namespace hvd::launcher
