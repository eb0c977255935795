// The facts of one job's end that hvdrun's root-cause report is made of: how each rank ended (with what its agent
// and its own error record said), which hosts were lost, and how hvdrun itself ended the job. JobReport
// (job_report.h) collects them; judge() (ranking.h) turns them into the verdict.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/failure_record.h"

namespace hvd::launcher::report {

struct RankEnding {
  // kUnknown: under --mpi, a rank whose end mpirun did not tell (it stops the others when one fails).
  enum class State { kRunning, kExited, kSpawnFailed, kLost, kUnknown };
  int rank = -1;     // the rank, or an elastic worker's id
  std::string name;  // "rank 1", or "worker h1/1 (rank 1 of generation 0)"
  std::string host;
  int pid = 0;
  State state = State::kRunning;
  std::optional<int> code, signal;       // kExited: one of them
  std::int64_t time_ms = 0;              // when it ended (its agent's clock), or when hvdrun learned it
  bool stopped = false;                  // its agent had signalled it first: hvdrun's teardown, not its own failure
  bool outside = false;                  // a stop signal from outside the job ended it (scancel, kill): no cause
  std::optional<FailureRecord> record;   // what it said about its failure (libhvd, hvd.torch, @record)
  std::vector<std::string> stderr_tail;  // its last stderr lines
  std::string error;                     // kSpawnFailed: why; kLost: why its host was lost

  bool failed() const {
    if (state == State::kUnknown) return false;
    return state != State::kExited || signal || (code && *code != 0);
  }
  bool is_consequence() const { return record && record->role == FailureRecord::Role::kConsequence; }
  bool is_cause_record() const { return record && record->role == FailureRecord::Role::kCause; }
};

struct HostLoss {
  std::string host;
  std::string reason;  // "link closed", "no heartbeat for 10 s"
  std::int64_t time_ms = 0;
};

// How hvdrun ended the job: the code its first failure set, and the signal that stopped it, if one did.
struct JobFate {
  int first_code = 0;                // 0: nothing failed
  std::string first_message;         // hvdrun's line for it
  std::optional<int> signal;         // SIGINT, SIGTERM, SIGHUP received before any failure
  std::optional<PendingOp> pending;  // the op the coordinator's ranks waited in at the end
};

}  // namespace hvd::launcher::report
