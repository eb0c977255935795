// A job's verdict from the facts of its end (rank_ending.h), as torchrun's ChildFailedError gives it: the root
// cause is the first cause in time, then every consequence.
//  - A cause: a rank that failed on its own (non-zero exit or a signal hvdrun did not send, without a record
//    saying it failed because of another rank), a rank whose own record says cause even if hvdrun stopped it
//    afterwards, a rank that could not be started, a lost host. Its time is its record's when it has one (the
//    moment it failed), else its exit's.
//  - A consequence: a rank whose record blames others (a peer's shutdown, death or stall), or one hvdrun stopped.
//  - Neither: a rank stopped from outside the job (a stop signal hvdrun did not send: scancel, kill).
//  - No cause at all, but consequences blaming a rank (it stalled, or left early): that rank, `inferred`, unless it
//    was stopped from outside; the blame is followed on while the blamed rank's own record blames another. A job
//    with no root cause and a rank stopped from outside was stopped, not failed.
// Exit code: 128+N when hvdrun was stopped by signal N before anything failed; with no root cause, 128+N for the
// signal N that stopped the first rank stopped from outside; 4 when the root cause is a lost host; the root
// cause's own code (128+N for its signal N) when it ended on its own; else the code of the first failure hvdrun
// saw. An elastic job keeps hvdrun's code (its failures are recovered from).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "launcher/report/rank_ending.h"

namespace hvd::launcher::report {

struct RootCause {
  std::optional<std::size_t> rank;       // into the endings
  std::optional<std::size_t> host_loss;  // into the losses
  bool inferred = false;                 // named by the consequences' records, not by a failure of its own
  std::string reason;                    // one line; "" when only stderr lines are known
  std::vector<std::string> details;      // traceback frames, the rest of a message, or the last stderr lines
  std::string source;                    // "python", "c++", "hvd", "torch", "stderr", "hvdrun"
  std::int64_t time_ms = 0;
};

struct Verdict {
  enum class Outcome { kSucceeded, kFailed, kStopped };
  Outcome outcome = Outcome::kSucceeded;
  int exit_code = 0;
  std::optional<RootCause> root;
  std::vector<std::size_t> other_causes;  // into the endings: later ranks that failed on their own, in time order
  std::vector<std::size_t> consequences;  // into the endings: the other failed or stopped ranks, in time order
};

Verdict judge(const std::vector<RankEnding>& endings, const std::vector<HostLoss>& losses, const JobFate& fate,
              bool elastic = false);

// "exited with code 3", "was killed by SIGSEGV", "was stopped (SIGTERM from the job's teardown)", ...
std::string describe_ending(const RankEnding& e);
std::string signal_name(int signal);

}  // namespace hvd::launcher::report
