// What an agent adds to a worker's "exit" frame for hvdrun's root-cause report (launcher/report/): when it ended
// (this host's wall clock), whether the agent had signalled it first (hvdrun's teardown, not a failure of its
// own) or a stop signal from outside the job ended it (scancel, kill: no failure of its own either), the record
// its libhvd, hvd.torch or torch's @record left (common/failure_record.h), the coordinator's pending op, and its
// last stderr lines, the reason of last resort.
// Contract: each worker gets HVD_ERROR_FILE and TORCHELASTIC_ERROR_FILE in a directory of this agent's own (mode
// 0700, removed with this object; one left by an agent that was killed is removed by the next agent); a worker's files
// are read once at its exit and removed, so a worker started again under the same id never reports its predecessor's
// record.
#pragma once

#include <deque>
#include <map>
#include <string>
#include <vector>

#include "common/messages/agent_reports.h"

namespace hvd::agent {

class ExitReports {
 public:
  static constexpr std::size_t kStderrTail = 10;  // lines kept per worker

  ExitReports() = default;
  ~ExitReports();
  ExitReports(const ExitReports&) = delete;
  ExitReports& operator=(const ExitReports&) = delete;

  // The record files' variables for worker `id` (a rank, or an elastic worker's id). No directory: none set.
  void add_env(int id, std::map<std::string, std::string>& env);
  void on_stderr(int id, const std::vector<std::string>& lines);
  // Sets the exit report's time_ms, stopped and outside, and where there are any its record, pending op and
  // stderr tail.
  void fill(int id, std::int64_t ended_ms, bool stopped, bool outside, messages::Exit& exit);

 private:
  std::string file_of(int id) const;
  bool make_dir();

  std::string dir_;  // "" until the first worker; "-" when it cannot be made
  std::map<int, std::deque<std::string>> stderr_;
};

}  // namespace hvd::agent
