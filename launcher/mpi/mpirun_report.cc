#include "launcher/mpi/mpirun_report.h"

#include <regex>

#include "common/failure_record.h"
#include "launcher/report/exit_codes.h"

namespace hvd::launcher {
namespace {

// One write of a rank's stderr: mpirun tags each, so a line written in two writes carries two tags.
const std::regex kTag(R"(\[\d+,(\d+)\]<stderr>:)");
const std::regex kProcessName(R"(^\s*Process name:\s*\[\[\d+,\d+\],(\d+)\])");
const std::regex kExitCode(R"(^\s*Exit code:\s*(-?\d+))");
const std::regex kSignalled(R"(process rank (\d+) with PID (\d+) on node (\S+) exited on signal (\d+))");

}  // namespace

void MpirunReport::on_line(const std::string& line) {
  std::smatch tag;
  if (!std::regex_search(line, tag, kTag) || tag.position(0) != 0) return on_mpirun_line(line);
  const int rank = std::stoi(tag[1]);
  const std::string text = std::regex_replace(line, kTag, "");
  if (text.find_first_not_of(" \t\r") == std::string::npos) return;
  auto& tail = tails_[rank];
  tail.push_back(text.size() > 1000 ? text.substr(0, 1000) + "..." : text);
  if (tail.size() > kStderrTail) tail.pop_front();
}

void MpirunReport::on_mpirun_line(const std::string& line) {
  if (first_) return;  // mpirun names the first failure; what follows is its teardown
  std::smatch m;
  if (std::regex_search(line, m, kProcessName)) {
    process_named_ = std::stoi(m[1]);
  } else if (process_named_ && std::regex_search(line, m, kExitCode)) {
    first_ = Named{*process_named_, std::stoi(m[1]), std::nullopt, 0, "", wall_clock_ms()};
  } else if (std::regex_search(line, m, kSignalled)) {
    first_ = Named{std::stoi(m[1]), std::nullopt, std::stoi(m[4]), std::stoi(m[2]), m[3], wall_clock_ms()};
  }
}

report::JobReport MpirunReport::finish(const Plan& plan, int code, std::optional<int> signal) const {
  report::JobReport report;
  const std::int64_t now = wall_clock_ms();
  for (int r = 0; r < plan.size(); ++r) {
    report.add_rank(r, "rank " + std::to_string(r), plan.slots[r].host);
    // What mpirun said about the rank, as an agent's exit report would say it.
    messages::Exit exit;
    exit.rank = r;
    exit.time_ms = now;
    if (auto it = tails_.find(r); it != tails_.end()) exit.stderr_tail.assign(it->second.begin(), it->second.end());
    if (first_ && first_->rank == r) {
      exit.time_ms = first_->time_ms;
      if (first_->pid > 0) exit.pid = first_->pid;  // Open MPI 4 may say "PID 0"
      exit.code = first_->code;
      exit.signal = first_->signal;
      report.exited(r, exit);
    } else if (code == exit_code::kOk) {
      exit.code = 0;  // mpirun exits 0 only when every rank did
      report.exited(r, exit);
    } else {
      report.unknown(r);
    }
  }
  if (signal) report.stopped_by(*signal);
  if (code != exit_code::kOk) {
    report.failed(code, first_ ? "mpirun stopped the job after rank " + std::to_string(first_->rank) + " failed"
                               : "mpirun exited with code " + std::to_string(code) + " and named no rank (its " +
                                     "lines above say why)");
  }
  return report;
}

}  // namespace hvd::launcher
