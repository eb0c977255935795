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

void JobReport::exited(int rank, const nlohmann::json& frame) {
  RankEnding& e = ending(rank);
  e.state = RankEnding::State::kExited;
  if (auto pid = frame.value("pid", 0); pid > 0) e.pid = pid;
  if (frame.contains("signal")) e.signal = frame.at("signal").get<int>();
  if (frame.contains("code")) e.code = frame.at("code").get<int>();
  e.time_ms = frame.value("time_ms", std::int64_t{0});
  if (e.time_ms == 0) e.time_ms = wall_clock_ms();
  e.stopped = frame.value("stopped", false) || told_to_end_.contains(rank);
  e.outside = frame.value("outside", false);
  if (auto it = frame.find("record"); it != frame.end() && it->is_object()) {
    e.record = failure_record_from_json(*it);
  }
  if (auto it = frame.find("stderr_tail"); it != frame.end() && it->is_array()) {
    e.stderr_tail = it->get<std::vector<std::string>>();
  }
  if (auto it = frame.find("pending"); it != frame.end() && it->is_object()) {
    fate_.pending = pending_op_from_json(*it);
  }
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
