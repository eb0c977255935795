// One job's outcome: which ranks (or an elastic job's workers) are still running, the exit code the first failure
// set, and the root-cause report (launcher/report/job_report.h) that hears every start, end and lost host. The
// session tells it what happened; it decides nothing about the agents.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "common/messages/agent_reports.h"
#include "launcher/report/job_report.h"

namespace hvd::launcher {

class JobOutcome {
 public:
  explicit JobOutcome(bool elastic) : report_(elastic) {}

  // A rank (static) or worker id (elastic) that will run; `label` names it in the report ("rank 3", "worker 7").
  void add(int id, const std::string& label, const std::string& host);
  void started(int id, int pid);
  void exited(int id, const messages::Exit& exit);
  void spawn_failed(int id, int code, const std::string& error);
  void gone(int id);  // ended without an exit message: its host was lost
  bool all_exited() const;

  // The first failure (or an elastic job's success) sets the exit code; false when the fate was already decided.
  bool decide(int code);
  const std::optional<int>& exit_code() const { return exit_code_; }
  report::JobReport& report() { return report_; }

  // After the job: --report's JSON written (`report_file` non-empty), hvdrun's exit code: the one decided
  // (elastic jobs and preflights, `own_code`), else the root cause's (report/ranking.h).
  int conclude(const std::string& report_file, bool own_code);

 private:
  std::map<int, bool> exited_;    // by rank or worker id
  std::optional<int> exit_code_;  // set by the first failure; the report's verdict may name another (conclude)
  report::JobReport report_;
};

}  // namespace hvd::launcher
