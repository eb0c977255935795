#include "runtime/engine/failure_file.h"

#include <unistd.h>

namespace hvd::detail {
namespace {

std::optional<FailureRecord> read_record(const std::string& path) {
  auto j = read_json_file(path);
  if (!j) return std::nullopt;
  return failure_record_from_json(*j);
}

}  // namespace

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

void record_uncaught(const std::string& path, int rank, FailureRecord record, const Error* hvd_error) noexcept {
  if (path.empty()) return;
  try {
    record.role = FailureRecord::Role::kCause;
    if (hvd_error) {
      auto old = read_record(path);
      const int peer = hvd_error->context().peer;
      if (peer >= 0 && peer == rank) {
        // This rank is the one at fault (a mismatch's odd one out): a cause, whatever came before.
      } else if (old && old->role == FailureRecord::Role::kConsequence) {
        record.role = FailureRecord::Role::kConsequence;
        record.blame = old->blame;
        record.time_ms = old->time_ms;
        if (record.tensor.empty()) record.tensor = old->tensor;
      } else if (peer >= 0) {
        record.role = FailureRecord::Role::kConsequence;
        record.blame = {peer};
      }
      if (record.tensor.empty()) record.tensor = hvd_error->context().tensor;
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
