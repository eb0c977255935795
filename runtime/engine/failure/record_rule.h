// Why this rank failed, for its agent and hvdrun's report (common/failure_record.h), written to the file
// HVD_ERROR_FILE names (nothing when it is empty). The one owner of the cause-or-consequence rule: libhvd's engine,
// its C++ terminate handler and every framework module's Python hook (through hvd_record_uncaught, c_api.h) go
// through it. Contract: a consequence never replaces a cause already there (the rank had failed on its own first);
// an uncaught hvd error keeps the consequence the engine recorded when it stopped (its blame, time, tensor, stall
// and stop), with its own message. Every call is noexcept: a report must never fail a rank.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/failure_record.h"

namespace hvd::detail {

// An exception nobody caught, as its language saw it.
struct UncaughtException {
  std::string source{};               // "c++", "python"
  std::string type{};                 // "RuntimeError", "hvd::Error"
  std::string message{};              // may span lines
  std::vector<std::string> frames{};  // the traceback's last frames, formatted, innermost last (may span lines)
  bool hvd_error = false;             // an hvd::Error (HorovodInternalError): `peer` and `tensor` are its fields
  int peer = -1;                      // the rank at fault by the error, -1 none
  std::string tensor{};
};

// Its record, as a cause stamped now: "Type: first line", then the frames and the message's next lines.
FailureRecord describe_uncaught(const UncaughtException& e);

void record_failure(const std::string& path, const FailureRecord& record) noexcept;

// `e`, uncaught on `rank`: a cause, unless it is an hvd error whose fault lies with another rank (the consequence
// the engine recorded before, or its peer), then a consequence of that rank; a mismatch's odd one out (the peer is
// this rank) is a cause whatever came before.
void record_uncaught(const std::string& path, int rank, const UncaughtException& e) noexcept;

// The coordinator's oldest pending op, in `<path>.pending`; nullopt removes it.
void record_pending(const std::string& path, const std::optional<PendingOp>& pending) noexcept;

}  // namespace hvd::detail
