// hvdrun --mpi's root-cause report, from what mpirun lets hvdrun know: its stderr (mpirun_child.h). With
// --tag-output every rank's stderr line comes as "[JOB,RANK]<stderr>:text", so hvdrun keeps each rank's last lines;
// when a rank fails, mpirun names the first one that did:
//   "  Process name: [[3453,1],1]" then "  Exit code:    3"             (a non-zero exit)
//   "mpirun noticed that process rank 2 with PID 0 on node h2 exited on signal 11 (Segmentation fault)."
// That rank is the root cause, its reason its last stderr lines; mpirun stops the others and says nothing of
// them (state "unknown"). Nothing named: the report gives mpirun's own exit. No error records, no pending op.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>

#include "launcher/plan/plan.h"
#include "launcher/report/job_report.h"

namespace hvd::launcher {

class MpirunReport {
 public:
  static constexpr std::size_t kStderrTail = 10;  // lines kept per rank, as an agent keeps

  void on_line(const std::string& line);
  // The report once mpirun ended: `code` is its exit code (128+N when killed by signal N), `signal` the one hvdrun
  // received, if any.
  report::JobReport finish(const Plan& plan, int code, std::optional<int> signal) const;

 private:
  struct Named {
    int rank = -1;
    std::optional<int> code, signal;
    int pid = 0;
    std::string host;
    std::int64_t time_ms = 0;  // when mpirun said so
  };
  void on_mpirun_line(const std::string& line);

  std::map<int, std::deque<std::string>> tails_;
  std::optional<int> process_named_;  // "Process name: [[J,1],R]" seen; its "Exit code:" line comes next
  std::optional<Named> first_;
};

}  // namespace hvd::launcher
