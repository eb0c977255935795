#include "launcher/report/job_report.h"

#include <cerrno>
#include <cstring>

#include "launcher/report/report_json.h"

namespace hvd::launcher::report {

RankEnding& JobReport::ending(int rank) {
  if (auto it = index_.find(rank); it != index_.end()) return endings_[it->second];
  add_rank(rank, "rank " + std::to_string(rank), "?");
  return endings_.back();
}

void JobReport::add_rank(int rank, const std::string& name, const std::string& host) {
  if (index_.count(rank)) {
    endings_[index_[rank]].name = name;
    endings_[index_[rank]].host = host;
    return;
  }
  RankEnding e;
  e.rank = rank;
  e.name = name;
  e.host = host;
  index_[rank] = endings_.size();
  endings_.push_back(std::move(e));
}

void JobReport::started(int rank, int pid) { ending(rank).pid = pid; }

void JobReport::exited(int rank, const messages::Exit& exit) {
  RankEnding& e = ending(rank);
  e.state = RankEnding::State::kExited;
  if (exit.pid > 0) e.pid = exit.pid;
  if (exit.signal) e.signal = exit.signal;
  if (exit.code) e.code = exit.code;
  e.time_ms = exit.time_ms != 0 ? exit.time_ms : wall_clock_ms();
  e.stopped = exit.stopped || told_to_end_.contains(rank);
  e.outside = exit.outside;
  if (exit.record) e.record = exit.record;
  if (!exit.stderr_tail.empty()) e.stderr_tail = exit.stderr_tail;
  if (exit.pending) fate_.pending = exit.pending;
}

void JobReport::spawn_failed(int rank, int code, const std::string& error) {
  RankEnding& e = ending(rank);
  e.state = RankEnding::State::kSpawnFailed;
  e.code = code;
  e.error = error;
  e.time_ms = wall_clock_ms();
}

void JobReport::unknown(int rank) {
  RankEnding& e = ending(rank);
  e.state = RankEnding::State::kUnknown;
  e.time_ms = wall_clock_ms();
}

void JobReport::host_lost(const std::string& host, const std::string& reason) {
  const std::int64_t now = wall_clock_ms();
  bool had_running = false;
  for (auto& e : endings_) {
    if (e.host != host || e.state != RankEnding::State::kRunning) continue;
    e.state = RankEnding::State::kLost;
    e.error = reason;
    e.time_ms = now;
    had_running = true;
  }
  if (had_running || !elastic_) losses_.push_back({host, reason, now});
}

void JobReport::failed(int code, const std::string& message) {
  if (fate_.first_code != 0 || fate_.signal) return;
  fate_.first_code = code;
  fate_.first_message = message;
}

void JobReport::told_to_end(int rank) { told_to_end_.insert(rank); }

void JobReport::stopped_by(int signal) {
  if (fate_.first_code != 0 || fate_.signal) return;
  fate_.signal = signal;
}

Verdict JobReport::verdict() const { return judge(endings_, losses_, fate_, elastic_); }

std::string JobReport::summary() const { return render_text(verdict(), facts()); }

nlohmann::json JobReport::to_json() const { return render_json(verdict(), facts()); }

bool JobReport::write(const std::string& path, std::string& error) const {
  if (write_json_file(path, to_json())) return true;
  error = "cannot write the report to " + path + ": " + std::strerror(errno);
  return false;
}

std::string JobReport::reason_of(int rank) const {
  auto it = index_.find(rank);
  if (it == index_.end()) return "";
  const RankEnding& e = endings_[it->second];
  if (e.record) return e.record->reason;
  return e.stderr_tail.empty() ? "" : e.stderr_tail.back();
}

}  // namespace hvd::launcher::report
