#include "agent/exit_reports.h"

#include <signal.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "common/failure_record.h"

namespace hvd::agent {

ExitReports::~ExitReports() {
  if (dir_.empty() || dir_ == "-") return;
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

namespace {

// Directories of agents that died without removing theirs (SIGKILL, a node's end): "hvd-records-<pid>-XXXXXX"
// whose agent is gone.
void sweep_stale(const std::filesystem::path& tmp) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(tmp, ec)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with("hvd-records-")) continue;
    const auto dash = name.find('-', 12);
    const std::string pid_text = name.substr(12, dash == std::string::npos ? 0 : dash - 12);
    if (pid_text.empty() || pid_text.find_first_not_of("0123456789") != std::string::npos) continue;
    const pid_t pid = static_cast<pid_t>(std::stol(pid_text));
    if (::kill(pid, 0) == 0 || errno != ESRCH) continue;
    std::filesystem::remove_all(entry.path(), ec);
  }
}

}  // namespace

bool ExitReports::make_dir() {
  if (!dir_.empty()) return dir_ != "-";
  std::error_code ec;
  const auto tmp = std::filesystem::temp_directory_path(ec);
  sweep_stale(tmp);
  std::string pattern = (tmp / ("hvd-records-" + std::to_string(::getpid()) + "-XXXXXX")).string();
  if (ec || !::mkdtemp(pattern.data())) {
    spdlog::warn(
        "cannot make a directory for the workers' error records in {}: {}; hvdrun's report will give "
        "their last stderr lines instead",
        pattern, ec ? ec.message() : std::strerror(errno));
    dir_ = "-";
    return false;
  }
  dir_ = pattern;
  return true;
}

std::string ExitReports::file_of(int id) const { return dir_ + "/" + std::to_string(id) + ".json"; }

void ExitReports::add_env(int id, std::map<std::string, std::string>& env) {
  if (!make_dir()) return;
  const std::string file = file_of(id);
  for (const auto& stale : {file, file + ".pending", file + ".torch"}) ::unlink(stale.c_str());
  stderr_.erase(id);
  env[kEnvErrorFile] = file;
  env[kEnvTorchErrorFile] = file + ".torch";
}

void ExitReports::on_stderr(int id, const std::vector<std::string>& lines) {
  auto& tail = stderr_[id];
  for (const auto& line : lines) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    tail.push_back(line.size() > 1000 ? line.substr(0, 1000) + "..." : line);
    if (tail.size() > kStderrTail) tail.pop_front();
  }
}

void ExitReports::fill(int id, std::int64_t ended_ms, bool stopped, bool outside, messages::Exit& exit) {
  exit.time_ms = ended_ms;
  exit.stopped = stopped;
  exit.outside = outside;
  if (auto it = stderr_.find(id); it != stderr_.end()) {
    exit.stderr_tail.assign(it->second.begin(), it->second.end());
    stderr_.erase(it);
  }
  if (dir_.empty() || dir_ == "-") return;
  const std::string file = file_of(id);
  // hvd's own record first: it knows a cause from a consequence; torch's @record file says only what was raised.
  if (auto j = read_json_file(file)) {
    exit.record = failure_record_from_json(*j);
  } else if (auto t = read_json_file(file + ".torch")) {
    exit.record = record_from_torch_error_file(*t);
  }
  if (auto p = read_json_file(file + ".pending")) exit.pending = pending_op_from_json(*p);
  for (const auto& done : {file, file + ".pending", file + ".torch"}) ::unlink(done.c_str());
}

}  // namespace hvd::agent
