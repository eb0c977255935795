#include "runtime/engine/failure/record_rule.h"

#include <unistd.h>

#include <sstream>

namespace hvd::detail {
namespace {

constexpr std::size_t kMessageLines = 12;  // the message's first lines, as the report shows them

std::optional<FailureRecord> read_record(const std::string& path) {
  auto j = read_json_file(path);
  if (!j) return std::nullopt;
  return failure_record_from_json(*j);
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The engine's consequence, kept: the uncaught error is how this rank noticed it.
void keep_consequence(const FailureRecord& old, FailureRecord& record) {
  record.role = FailureRecord::Role::kConsequence;
  record.blame = old.blame;
  record.time_ms = old.time_ms;
  if (record.tensor.empty()) record.tensor = old.tensor;
  record.stall = old.stall;
  record.stop = old.stop;
}

}  // namespace

FailureRecord describe_uncaught(const UncaughtException& e) {
  FailureRecord r;
  r.source = e.source;
  r.time_ms = wall_clock_ms();
  auto lines = split_lines(e.message);
  const std::string first = lines.empty() ? std::string() : lines.front();
  r.reason = first.empty() ? e.type : e.type + ": " + first;
  for (const auto& frame : e.frames) {
    for (auto& line : split_lines(frame)) r.details.push_back(std::move(line));
  }
  for (std::size_t i = 1; i < lines.size() && i < kMessageLines; ++i) r.details.push_back(lines[i]);
  return r;
}

void record_failure(const std::string& path, const FailureRecord& record) noexcept {
  if (path.empty()) return;
  try {
    if (record.role == FailureRecord::Role::kConsequence) {
      if (auto old = read_record(path); old && old->role == FailureRecord::Role::kCause) return;
    }
    write_json_file(path, to_json(record));
  } catch (...) {
  }
}

void record_uncaught(const std::string& path, int rank, const UncaughtException& e) noexcept {
  if (path.empty()) return;
  try {
    FailureRecord record = describe_uncaught(e);
    if (e.hvd_error) {
      auto old = read_record(path);
      if (e.peer >= 0 && e.peer == rank) {
        // This rank is the one at fault (a mismatch's odd one out): a cause, whatever came before.
      } else if (old && old->role == FailureRecord::Role::kConsequence) {
        keep_consequence(*old, record);
      } else if (e.peer >= 0) {
        record.role = FailureRecord::Role::kConsequence;
        record.blame = {e.peer};
      }
      if (record.tensor.empty()) record.tensor = e.tensor;
    }
    write_json_file(path, to_json(record));
  } catch (...) {
  }
}

void record_pending(const std::string& path, const std::optional<PendingOp>& pending) noexcept {
  if (path.empty()) return;
  try {
    const std::string file = path + ".pending";
    if (!pending) {
      ::unlink(file.c_str());
      return;
    }
    write_json_file(file, to_json(*pending));
  } catch (...) {
  }
}

}  // namespace hvd::detail
