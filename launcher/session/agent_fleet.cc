#include "launcher/session/agent_fleet.h"

#include "common/messages/agent_commands.h"
#include "common/protocol.h"

namespace hvd::launcher {

FleetAgent& AgentFleet::add(const std::string& host) {
  FleetAgent agent;
  agent.index = static_cast<int>(agents_.size());
  agent.host = host;
  agents_.push_back(std::move(agent));
  return agents_.back();
}

FleetAgent* AgentFleet::find(const std::string& host) {
  FleetAgent* found = nullptr;
  for (auto& a : agents_) {
    if (a.host == host && (!found || !a.done)) found = &a;
  }
  return found;
}

bool AgentFleet::all_linked() const {
  for (const auto& a : agents_) {
    if (!a.link) return false;
  }
  return true;
}

bool AgentFleet::all_done() const {
  for (const auto& a : agents_) {
    if (!a.done) return false;
  }
  return true;
}

std::vector<std::string> AgentFleet::connected_hosts() const {
  std::vector<std::string> hosts;
  for (const auto& a : agents_) {
    if (a.link) hosts.push_back(a.host);
  }
  return hosts;
}

std::vector<std::string> AgentFleet::machines() const {
  std::vector<std::string> machines;
  for (const auto& a : agents_) machines.push_back(a.machine);
  return machines;
}

std::optional<std::string> AgentFleet::start_failures() const {
  std::string failures;
  for (const auto& a : agents_) {
    if (!a.link && a.failure.empty()) return std::nullopt;
    if (!a.failure.empty()) failures += (failures.empty() ? "" : "; ") + a.failure;
  }
  return failures;
}

std::string AgentFleet::unconnected() const {
  std::string missing;
  for (const auto& a : agents_) {
    if (!a.link) missing += (missing.empty() ? "" : ", ") + a.host + (a.failure.empty() ? "" : " (" + a.failure + ")");
  }
  return missing;
}

void AgentFleet::send_to_live(const nlohmann::json& message) {
  for (auto& a : agents_) {
    if (a.live()) a.link->send(message);
  }
}

void AgentFleet::heartbeat() {
  const auto now = std::chrono::steady_clock::now();
  for (auto& a : agents_) {
    if (!a.live()) continue;
    if (now - a.last_heard > protocol::kHeartbeatTimeout) {
      a.link->close("no heartbeat for " + std::to_string(protocol::kHeartbeatTimeout.count()) + " s");
      continue;
    }
    a.link->send_urgent(messages::Heartbeat{}.encode());
  }
}

void AgentFleet::close_all(const std::string& reason) {
  for (auto& a : agents_) {
    if (a.link) a.link->close(reason);
    a.process.reset();
    a.done = true;
  }
}

}  // namespace hvd::launcher
