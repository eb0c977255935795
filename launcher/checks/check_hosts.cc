#include "launcher/checks/check_hosts.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

#include "launcher/plan/plan.h"
#include "launcher/session/session.h"

namespace hvd::launcher {
namespace {

struct PeerResult {
  bool ok = false;
  std::string detail;
};

}  // namespace

int check_hosts(SessionOptions options, const std::string& local_agent_path) {
  // One probe per host, whatever its slots.
  for (auto& h : options.hosts) h.slots = 1;
  const std::string probe = options.agent_path.empty() ? local_agent_path : options.agent_path;
  options.command = {probe, "--check-peers"};
  Plan plan = make_plan(options.hosts, static_cast<int>(options.hosts.size()));

  // results[from][to]
  std::map<std::string, std::map<std::string, PeerResult>> results;
  std::map<std::string, std::string> probe_errors;
  Session session(options, plan, local_agent_path);
  session.set_output_handler([&](int rank, bool is_stderr, const std::string& line) {
    const std::string& host = plan.slots.at(rank).host;
    std::istringstream in(line);
    std::string tag, from, to, address, verdict;
    if (!is_stderr && (in >> tag >> from >> to >> address >> verdict) && tag == "CHECK") {
      std::string rest;
      std::getline(in, rest);
      results[host][to] = {verdict == "ok", address + (verdict == "ok" ? rest + " ms" : ":" + rest)};
    } else if (is_stderr) {
      probe_errors[host] += line + " ";
    }
  });
  const int code = session.run();
  const auto connected = session.connected_hosts();

  bool all_ok = code == 0;
  std::printf("%-24s %-12s %s\n", "host", "ssh+agent", "data plane to every other host");
  for (const auto& h : plan.hosts) {
    const bool up = std::find(connected.begin(), connected.end(), h.name) != connected.end();
    std::string peers;
    bool peers_ok = up;
    for (const auto& other : plan.hosts) {
      if (other.name == h.name || !up) continue;
      auto it = results[h.name].find(other.name);
      const bool ok = it != results[h.name].end() && it->second.ok;
      peers_ok = peers_ok && ok;
      peers += other.name + (ok ? " ok" : " FAIL (" + (it == results[h.name].end() ? "no answer" : it->second.detail) + ")") + "; ";
    }
    if (!probe_errors[h.name].empty()) peers += "probe: " + probe_errors[h.name];
    all_ok = all_ok && peers_ok;
    std::printf("%-24s %-12s %s\n", h.display().c_str(), up ? "ok" : "FAIL (above)",
                up ? (peers.empty() ? "(single host)" : peers.c_str()) : "-");
  }
  std::printf("verdict: %s\n", all_ok ? "every check passed" : "FAILED: see the rows marked FAIL");
  std::fflush(stdout);
  return all_ok ? 0 : 1;
}

}  // namespace hvd::launcher
