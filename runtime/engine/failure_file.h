// Where libhvd leaves why this rank failed, for its agent and hvdrun's report (common/failure_record.h): the file
// HVD_ERROR_FILE names (nothing is written when it is empty). Contract: a consequence never replaces a cause
// already there (the rank had failed on its own first); an uncaught hvd error keeps the consequence the engine
// recorded when it stopped, adding its own message. Every call is noexcept: a report must never fail a rank.
#pragma once

#include <optional>
#include <string>

#include "common/failure_record.h"
#include "hvd/error.h"

namespace hvd::detail {

void record_failure(const std::string& path, const FailureRecord& record) noexcept;

// An exception nobody caught on `rank` (record: its type, message, frames; a cause): when it is an hvd error whose
// fault lies with another rank (its peer, or the consequence recorded before), a consequence of that rank.
void record_uncaught(const std::string& path, int rank, FailureRecord record, const Error* hvd_error) noexcept;

// The coordinator's oldest pending op, in `<path>.pending`; nullopt removes it.
void record_pending(const std::string& path, const std::optional<PendingOp>& pending) noexcept;

}  // namespace hvd::detail
