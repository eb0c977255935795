// One job's root-cause report (habit 11): the session tells it what happens (ranks placed, started, ended; hosts
// lost; how hvdrun ended the job) and asks at the end for the verdict (ranking.h), the summary for people
// (report_text.h) and the JSON of --report (report_json.h). It holds facts only; it sends and stops nothing.
#pragma once

#include <map>
#include <set>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/messages/agent_reports.h"
#include "launcher/report/ranking.h"
#include "launcher/report/report_text.h"

namespace hvd::launcher::report {

class JobReport {
 public:
  explicit JobReport(bool elastic = false) : elastic_(elastic) {}

  void add_rank(int rank, const std::string& name, const std::string& host);
  void started(int rank, int pid);
  // The agent's exit report (common/messages/agent_reports.h): status, time, stopped, record, pending, stderr tail.
  void exited(int rank, const messages::Exit& exit);
  void spawn_failed(int rank, int code, const std::string& error);
  // Under --mpi: mpirun did not say how the rank ended.
  void unknown(int rank);
  // The host's agent is gone without saying bye: its ranks still running end as lost with it.
  void host_lost(const std::string& host, const std::string& reason);
  // The first failure hvdrun saw, with its code and line; later calls change nothing.
  void failed(int code, const std::string& message);
  // hvdrun answered this elastic worker "the job is ending": its exit that follows is hvdrun's stop, as the
  // teardown's signal would be (the answer often reaches it first).
  void told_to_end(int rank);
  // hvdrun received `signal` before anything failed.
  void stopped_by(int signal);

  Verdict verdict() const;
  std::string summary() const;  // "" when the job succeeded
  nlohmann::json to_json() const;
  // Writes to_json() to `path` whole (a temporary file renamed over it); false with `error` set when it cannot.
  bool write(const std::string& path, std::string& error) const;
  // What a rank's ending says about why it failed: its record's reason, else its last stderr line ("" if none).
  std::string reason_of(int rank) const;

 private:
  RankEnding& ending(int rank);
  Facts facts() const { return {endings_, losses_, fate_}; }

  bool elastic_;
  std::vector<RankEnding> endings_;
  std::map<int, std::size_t> index_;  // rank (or worker id) -> endings_
  std::vector<HostLoss> losses_;
  std::set<int> told_to_end_;
  JobFate fate_;
};

}  // namespace hvd::launcher::report
