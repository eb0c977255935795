#include "common/failure_record.h"

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>

#include "common/advisory_json.h"

namespace hvd {

std::int64_t wall_clock_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

nlohmann::json to_json(const FailureRecord& r) {
  nlohmann::json j{{"role", r.role == FailureRecord::Role::kCause ? "cause" : "consequence"},
                   {"reason", r.reason},
                   {"time_ms", r.time_ms}};
  if (!r.details.empty()) j["details"] = r.details;
  if (!r.blame.empty()) j["blame"] = r.blame;
  if (!r.tensor.empty()) j["tensor"] = r.tensor;
  if (!r.source.empty()) j["source"] = r.source;
  if (r.stall) j["stall"] = true;
  if (r.stop) j["stop"] = to_json(*r.stop);
  return j;
}

FailureRecord failure_record_from_json(const nlohmann::json& j) {
  FailureRecord r;
  if (!j.is_object()) return r;
  std::string role;
  get_if_present(j, "role", role);
  r.role = role == "consequence" ? FailureRecord::Role::kConsequence : FailureRecord::Role::kCause;
  get_if_present(j, "reason", r.reason);
  get_if_present(j, "details", r.details);
  get_if_present(j, "blame", r.blame);
  get_if_present(j, "tensor", r.tensor);
  get_if_present(j, "source", r.source);
  get_if_present(j, "time_ms", r.time_ms);
  get_if_present(j, "stall", r.stall);
  if (auto it = j.find("stop"); it != j.end() && it->is_object()) r.stop = stop_from_json(*it);
  return r;
}

nlohmann::json to_json(const PendingOp& p) {
  return {{"op", p.op}, {"tensor", p.tensor}, {"missing", p.missing}, {"since_ms", p.since_ms}, {"others", p.others}};
}

PendingOp pending_op_from_json(const nlohmann::json& j) {
  PendingOp p;
  if (!j.is_object()) return p;
  get_if_present(j, "op", p.op);
  get_if_present(j, "tensor", p.tensor);
  get_if_present(j, "missing", p.missing);
  get_if_present(j, "since_ms", p.since_ms);
  get_if_present(j, "others", p.others);
  return p;
}

bool write_json_file(const std::string& path, const nlohmann::json& j) noexcept {
  try {
    const std::string text = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    const std::string tmp = path + ".tmp" + std::to_string(::getpid());
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) return false;
    std::size_t done = 0;
    while (done < text.size()) {
      const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
    ::close(fd);
    if (done != text.size() || ::rename(tmp.c_str(), path.c_str()) != 0) {
      ::unlink(tmp.c_str());
      return false;
    }
    return true;
  } catch (...) {
    return false;
  }
}

std::optional<nlohmann::json> read_json_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  auto j = nlohmann::json::parse(text.str(), nullptr, false);
  if (j.is_discarded() || j.is_null()) return std::nullopt;
  return j;
}

std::optional<FailureRecord> record_from_torch_error_file(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("message")) return std::nullopt;
  const auto& message = j.at("message");
  FailureRecord r;
  r.source = "torch";
  if (message.is_string()) {
    r.reason = message.get<std::string>();
    return r;
  }
  if (!message.is_object()) return std::nullopt;
  get_if_present(message, "message", r.reason);
  if (auto info = message.find("extraInfo"); info != message.end() && info->is_object()) {
    std::string callstack, timestamp;
    get_if_present(*info, "py_callstack", callstack);
    get_if_present(*info, "timestamp", timestamp);
    r.details = last_lines(callstack, 8);
    try {
      r.time_ms = std::stoll(timestamp) * 1000;
    } catch (const std::exception&) {
    }
  }
  return r;
}

std::vector<std::string> last_lines(const std::string& text, std::size_t keep) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.find_first_not_of(" \t\r") != std::string::npos) lines.push_back(line);
  }
  if (lines.size() > keep) lines.erase(lines.begin(), lines.end() - static_cast<std::ptrdiff_t>(keep));
  return lines;
}

}  // namespace hvd
