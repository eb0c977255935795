#include "runtime/engine/failure/engine_stop.h"

#include <algorithm>

#include "hvd/error.h"
#include "runtime/engine/failure/record_rule.h"

namespace hvd::detail {

EngineStop::EngineStop(std::string error_file, const Topology& topology)
    : error_file_(std::move(error_file)), topology_(topology) {}

bool EngineStop::adopt(const Stop& stop, std::vector<std::int64_t> blame) {
  stop_ = stop;
  blame_ = std::move(blame);
  if (stop_.code != StopCode::kStall) return false;
  if (auto r = coordinator_record()) record_failure(error_file_, *r);
  stall_recorded_ = true;
  return true;
}

std::exception_ptr EngineStop::error() const {
  int peer = -1;
  for (auto r : blame_) {
    if (r != topology_.rank && peer < 0) peer = job_rank(topology_, static_cast<int>(r));
  }
  return std::make_exception_ptr(
      Error(ErrorKind::kInternal, shut_down_message(stop_),
            {.rank = job_rank(topology_, topology_.rank), .peer = peer, .tensor = stop_.tensor}));
}

void EngineStop::finish(const std::exception_ptr& failure, bool ops_in_flight) {
  record_ = record_for(failure);
  // A stall's record is written already (adopt). Otherwise a consequence only when an op fails because of it (a job
  // ended by another rank's shutdown fails nothing here), a cause at once.
  if (!record_ || stall_recorded_) return;
  if (ops_in_flight || record_->role == FailureRecord::Role::kCause) {
    record_failure(error_file_, *record_);
  } else {
    record_due_.store(true);
  }
}

void EngineStop::write_due_record() {
  if (record_due_.load(std::memory_order_relaxed) && record_due_.exchange(false)) record_failure(error_file_, *record_);
}

void EngineStop::note_pending(const std::optional<PendingOp>& pending) {
  std::string key;
  if (pending) {
    key = pending->tensor;
    for (int r : pending->missing) key += "," + std::to_string(r);
  }
  if (key == pending_written_) return;
  pending_written_ = key;
  record_pending(error_file_, pending);
}

std::optional<FailureRecord> EngineStop::record_for(const std::exception_ptr& failure) const {
  if (!failure) return std::nullopt;
  if (stopped()) return coordinator_record();
  try {
    std::rethrow_exception(failure);
  } catch (const Error& e) {
    // The communicator names ranks as the job does (a process set's numbers its members 0..).
    const int me = job_rank(topology_, topology_.rank);
    if (e.kind() != ErrorKind::kPeerLost || e.context().peer < 0 || e.context().peer == me) return {};
    FailureRecord r;
    r.role = FailureRecord::Role::kConsequence;
    r.source = "hvd";
    r.time_ms = wall_clock_ms();
    r.reason = e.what();
    r.blame = {e.context().peer};
    r.tensor = e.context().tensor;
    r.stop = Stop{.code = StopCode::kPeerLost, .rank = e.context().peer};
    return r;
  } catch (...) {
  }
  return std::nullopt;
}

std::optional<FailureRecord> EngineStop::coordinator_record() const {
  const bool stall = stop_.code == StopCode::kStall;
  const bool mine = std::find(blame_.begin(), blame_.end(), topology_.rank) != blame_.end();
  if (mine && !stall) return std::nullopt;  // this rank's own hvd::shutdown()
  FailureRecord r;
  r.role = mine ? FailureRecord::Role::kCause : FailureRecord::Role::kConsequence;
  r.source = "hvd";
  r.time_ms = wall_clock_ms();
  r.tensor = stop_.tensor;
  r.stall = stall && !mine;
  r.stop = stop_;
  for (auto b : blame_) {
    if (b != topology_.rank) r.blame.push_back(job_rank(topology_, static_cast<int>(b)));
  }
  if (mine) {
    r.reason = stalled_rank_reason(stop_);
    r.details = last_lines(describe(stop_), 12);
    return r;
  }
  // "stalled ... shutting down:" reads on in its next line, the tensor and the ranks waited for.
  const auto lines = last_lines(shut_down_message(stop_), 12);
  std::size_t used = lines.empty() ? 0 : 1;
  r.reason = lines.empty() ? std::string() : lines.front();
  if (r.reason.ends_with(':') && lines.size() > 1) {
    r.reason += " " + lines[1].substr(lines[1].find_first_not_of(' '));
    ++used;
  }
  r.details.assign(lines.begin() + static_cast<std::ptrdiff_t>(used), lines.end());
  return r;
}

}  // namespace hvd::detail
