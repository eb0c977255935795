// The engine's end as hvdrun's report sees it: why the coordinator stopped the job (a code, common/stop.h, and the
// ranks it is down to), the error every op fails with from then on, and this rank's failure record, written
// through the one rule (record_rule.h) when it is due; also the coordinator's pending op. Contract: the thread that
// runs the engine's cycles calls it (under the cycle mutex), but write_due_record(), which any thread may call once
// finish() has run. `topology` must outlive it.
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "common/failure_record.h"
#include "runtime/comm/communicator.h"

namespace hvd::detail {

class EngineStop {
 public:
  EngineStop(std::string error_file, const Topology& topology);

  // The coordinator stops the job: `blame` in the engine's numbers. A stall is recorded at once (every rank records
  // before any fails its ops); true when so, and the ranks must then meet once.
  bool adopt(const Stop& stop, std::vector<std::int64_t> blame);
  bool stopped() const { return stop_.code != StopCode::kNone; }
  // What ops fail with after adopt(): "hvd is shut down: ...", naming the first other rank blamed as the peer.
  std::exception_ptr error() const;
  // The engine stopped because of `failure` (error() or a data-plane error): this rank's record, written now when
  // ops in flight fail with it or it is a cause, else by the first op enqueued later (write_due_record()).
  void finish(const std::exception_ptr& failure, bool ops_in_flight);
  void write_due_record();
  // The coordinator's oldest pending op, written when it changes.
  void note_pending(const std::optional<PendingOp>& pending);

  // The record for `failure`: a consequence of the ranks at fault, a cause when this rank is the one a stall waited
  // for, none for this rank's own shutdown, a reset, or an error of its own.
  std::optional<FailureRecord> record_for(const std::exception_ptr& failure) const;

 private:
  std::optional<FailureRecord> coordinator_record() const;

  const std::string error_file_;
  const Topology& topology_;
  Stop stop_;
  std::vector<std::int64_t> blame_;  // the engine's numbers
  bool stall_recorded_ = false;      // adopt() wrote this rank's record
  std::string pending_written_;      // what the last note_pending() wrote ("" none)
  // Written once by finish(); recorded then, or by the first enqueue that fails with it.
  std::optional<FailureRecord> record_;
  std::atomic<bool> record_due_{false};
};

}  // namespace hvd::detail
