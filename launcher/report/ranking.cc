#include "launcher/report/ranking.h"

#include <signal.h>
#include <string.h>

#include <algorithm>

#include "launcher/report/exit_codes.h"

namespace hvd::launcher::report {
namespace {

using Role = FailureRecord::Role;

// A rank hvdrun's teardown signalled, without a record of a failure of its own, is no cause; nor is one stopped
// from outside the job, whatever it recorded on the way (Python's KeyboardInterrupt).
bool is_cause(const RankEnding& e) {
  if (e.state == RankEnding::State::kSpawnFailed) return true;
  if (e.outside) return false;
  if (e.is_cause_record()) return true;
  if (e.state != RankEnding::State::kExited || !e.failed()) return false;
  return !e.is_consequence() && !e.stopped;
}

std::int64_t failure_time(const RankEnding& e) {
  if (e.is_cause_record() && e.record->time_ms > 0) return e.record->time_ms;
  return e.time_ms;
}

RootCause rank_cause(const std::vector<RankEnding>& endings, std::size_t i) {
  const RankEnding& e = endings[i];
  RootCause root;
  root.rank = i;
  root.time_ms = failure_time(e);
  if (e.record && !e.is_consequence()) {
    root.reason = e.record->reason;
    root.details = e.record->details;
    root.source = e.record->source;
  } else if (e.state == RankEnding::State::kSpawnFailed) {
    root.reason = e.error;
    root.source = "hvdrun";
  } else if (!e.stderr_tail.empty()) {
    root.details = e.stderr_tail;
    root.source = "stderr";
  }
  return root;
}

// A stalled rank stopped by the teardown before its own record of the stall was written: the witness's record
// says as much, from the other side: the stop's code and facts (common/stop.h) say it in the stalled rank's words.
void stall_from_witness(const FailureRecord& witness, RootCause& root) {
  Stop stop = witness.stop.value_or(Stop{.code = StopCode::kStall});
  if (stop.tensor.empty()) stop.tensor = witness.tensor;
  root.reason = stalled_rank_reason(stop);
  root.details = witness.stop ? last_lines(describe(stop), 12) : std::vector<std::string>{witness.reason};
  if (!witness.stop) root.details.insert(root.details.end(), witness.details.begin(), witness.details.end());
  root.source = witness.source;
}

std::optional<std::size_t> index_of_rank(const std::vector<RankEnding>& endings, int rank) {
  for (std::size_t i = 0; i < endings.size(); ++i) {
    if (endings[i].rank == rank) return i;
  }
  return std::nullopt;
}

// The rank at `i`, named by the consequence `witness` that blames it.
RootCause blamed_cause(const std::vector<RankEnding>& endings, std::size_t i, const RankEnding& witness) {
  RootCause root = rank_cause(endings, i);
  root.inferred = true;
  root.time_ms = witness.record->time_ms;
  if (endings[i].is_cause_record()) return root;
  if (witness.record->stall) {
    stall_from_witness(*witness.record, root);
  } else {
    root.reason = witness.name + " failed because of it: " + witness.record->reason;
    if (root.source != "stderr") {  // its own last lines say more than the witness's frames
      root.details = witness.record->details;
      root.source = witness.record->source;
    }
  }
  return root;
}

// No rank failed on its own: the rank the earliest consequence blames, if it is one of the job's. The blame is
// followed on through ranks that failed because of another themselves (a rank told of a peer's lost link by its
// host's first witness blames that witness, whose own record blames the peer), so that a chain ending at a rank
// stopped from outside names no cause; a cycle ends where it closes.
std::optional<RootCause> inferred_cause(const std::vector<RankEnding>& endings) {
  std::optional<std::size_t> first;
  for (std::size_t i = 0; i < endings.size(); ++i) {
    const auto& e = endings[i];
    if (!e.is_consequence() || e.record->blame.empty()) continue;
    if (!first || failure_time(e) < failure_time(endings[*first])) first = i;
  }
  if (!first) return std::nullopt;
  std::vector<bool> followed(endings.size(), false);
  for (std::size_t witness = *first;;) {
    followed[witness] = true;
    const auto blamed = index_of_rank(endings, endings[witness].record->blame.front());
    if (!blamed) return std::nullopt;
    const RankEnding& next = endings[*blamed];
    if (next.outside) return std::nullopt;  // stopped from outside: the others' failure is no fault of it
    if (!next.is_consequence() || next.record->blame.empty() || followed[*blamed]) {
      return blamed_cause(endings, *blamed, endings[witness]);
    }
    witness = *blamed;
  }
}

std::optional<RootCause> first_cause(const std::vector<RankEnding>& endings, const std::vector<HostLoss>& losses) {
  std::optional<RootCause> best;
  for (std::size_t i = 0; i < endings.size(); ++i) {
    if (!is_cause(endings[i])) continue;
    if (!best || failure_time(endings[i]) < best->time_ms) best = rank_cause(endings, i);
  }
  for (std::size_t i = 0; i < losses.size(); ++i) {
    if (best && losses[i].time_ms >= best->time_ms) continue;
    RootCause root;
    root.host_loss = i;
    root.time_ms = losses[i].time_ms;
    root.reason = "lost the agent on " + losses[i].host + " (" + losses[i].reason + ")";
    root.source = "hvdrun";
    best = root;
  }
  return best ? best : inferred_cause(endings);
}

int own_code(const RankEnding& e) {
  if (e.signal) return exit_code::kSignalBase + *e.signal;
  return e.code.value_or(0);
}

int exit_code_of(const std::optional<RootCause>& root, const std::vector<RankEnding>& endings, const JobFate& fate) {
  if (fate.signal) return exit_code::kSignalBase + *fate.signal;
  if (!root) {
    // Stopped from outside: the first stop's signal, even when hvdrun heard first of a rank that failed because
    // of it (on a busy machine a peer's lost link can be reported before the stopped rank's own exit).
    const RankEnding* first_stop = nullptr;
    for (const auto& e : endings) {
      if (!e.outside || !e.signal) continue;
      if (!first_stop || e.time_ms < first_stop->time_ms) first_stop = &e;
    }
    return first_stop ? own_code(*first_stop) : fate.first_code;
  }
  if (root->host_loss) return exit_code::kAgentLost;
  const RankEnding& e = endings[*root->rank];
  if (e.state == RankEnding::State::kSpawnFailed) return e.code.value_or(fate.first_code);
  // Killed by hvdrun's own teardown, or not ended at all: its code is none of its own.
  if (e.state != RankEnding::State::kExited || !e.failed() || (e.stopped && e.signal)) return fate.first_code;
  return own_code(e);
}

}  // namespace

std::string signal_name(int signal) {
  const char* abbrev = sigabbrev_np(signal);
  return abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(signal);
}

std::string describe_ending(const RankEnding& e) {
  switch (e.state) {
    case RankEnding::State::kRunning:
      return "was still running";
    case RankEnding::State::kSpawnFailed:
      return "could not be started: " + e.error;
    case RankEnding::State::kLost:
      return "was lost with its host (" + e.error + ")";
    case RankEnding::State::kUnknown:
      return "ended as mpirun did not say";
    case RankEnding::State::kExited:
      break;
  }
  if (e.signal && e.outside) return "was stopped from outside the job (" + signal_name(*e.signal) + ")";
  if (e.signal && e.stopped) return "was stopped (" + signal_name(*e.signal) + " from the job's teardown)";
  if (e.signal) return "was killed by " + signal_name(*e.signal);
  const bool after_stop = e.stopped && !e.is_cause_record();
  return "exited with code " + std::to_string(e.code.value_or(0)) + (after_stop ? " after it was stopped" : "");
}

Verdict judge(const std::vector<RankEnding>& endings, const std::vector<HostLoss>& losses, const JobFate& fate,
              bool elastic) {
  Verdict v;
  const bool any_failed = std::any_of(endings.begin(), endings.end(), [](const auto& e) { return e.failed(); });
  if (fate.first_code == 0 && !fate.signal && losses.empty() && !any_failed) return v;
  v.root = first_cause(endings, losses);
  const bool outside = std::any_of(endings.begin(), endings.end(), [](const auto& e) { return e.outside; });
  v.outcome = fate.signal || (!v.root && outside) ? Verdict::Outcome::kStopped : Verdict::Outcome::kFailed;
  if (elastic && fate.first_code == 0 && !fate.signal) v.outcome = Verdict::Outcome::kSucceeded;
  v.exit_code = elastic ? fate.first_code : exit_code_of(v.root, endings, fate);
  const std::string lost_root = v.root && v.root->host_loss ? losses[*v.root->host_loss].host : "";
  for (std::size_t i = 0; i < endings.size(); ++i) {
    if (v.root && v.root->rank == i) continue;
    // The root cause's lost host lists its ranks itself.
    if (endings[i].state == RankEnding::State::kLost && endings[i].host == lost_root) continue;
    if (is_cause(endings[i])) {
      v.other_causes.push_back(i);
    } else if (endings[i].failed() || endings[i].stopped) {
      v.consequences.push_back(i);
    }
  }
  auto by_time = [&](std::size_t a, std::size_t b) { return failure_time(endings[a]) < failure_time(endings[b]); };
  std::stable_sort(v.other_causes.begin(), v.other_causes.end(), by_time);
  std::stable_sort(v.consequences.begin(), v.consequences.end(), by_time);
  return v;
}

}  // namespace hvd::launcher::report
