#include "launcher/report/report_text.h"

#include <time.h>

#include <algorithm>
#include <cstdio>

namespace hvd::launcher::report {
namespace {

constexpr std::size_t kConsequencesShown = 16;  // a 512-rank job lists the first ones and a count

std::string headline(const Verdict& v, const JobFate& fate) {
  const std::string code = " (exit " + std::to_string(v.exit_code) + ")";
  if (v.outcome == Verdict::Outcome::kStopped) {
    return "hvdrun: the job was stopped " + (fate.signal ? "by " + signal_name(*fate.signal) : "from outside") + code;
  }
  return "hvdrun: the job failed" + code;
}

std::string root_lines(const RootCause& root, const Facts& f) {
  std::string out = "Root cause (first observed failure):\n";
  if (root.host_loss) {
    out += "  " + root.reason + " at " + clock_time(root.time_ms) + "\n";
    for (const auto& e : f.endings) {
      if (e.host == f.losses[*root.host_loss].host && e.state == RankEnding::State::kLost) {
        out += "    " + describe_rank(e) + " was lost with it\n";
      }
    }
    return out;
  }
  const RankEnding& e = f.endings[*root.rank];
  out += "  " + describe_rank(e) + " " + describe_ending(e);
  if (e.state == RankEnding::State::kExited) out += " at " + clock_time(e.time_ms);
  out += "\n";
  if (root.inferred) out += "    (named by the ranks that failed because of it)\n";
  if (!root.reason.empty()) out += "    " + root.reason + "\n";
  if (root.source == "stderr") out += "    its last lines on stderr:\n";
  for (const auto& line : root.details) out += "      " + line + "\n";
  return out;
}

std::string consequence_line(const RankEnding& e) {
  std::string line = "  " + describe_rank(e) + " " + describe_ending(e);
  if (e.record) line += ": " + e.record->reason;
  return line + "\n";
}

std::string rank_lines(const std::vector<std::size_t>& ranks, const Facts& f) {
  std::string out;
  for (std::size_t i = 0; i < ranks.size() && i < kConsequencesShown; ++i) out += consequence_line(f.endings[ranks[i]]);
  if (ranks.size() > kConsequencesShown) {
    out += "  ... and " + std::to_string(ranks.size() - kConsequencesShown) + " more\n";
  }
  return out;
}

std::string pending_line(const PendingOp& p, const Facts& f, std::int64_t now_ms) {
  std::string out = "Waiting when the job ended: " + p.op + " '" + p.tensor + "' for " +
                    std::to_string((now_ms - p.since_ms) / 1000) + " s, missing ";
  for (std::size_t i = 0; i < p.missing.size(); ++i) {
    std::string who = "rank " + std::to_string(p.missing[i]);
    for (const auto& e : f.endings) {
      if (e.rank == p.missing[i]) who = describe_rank(e);
    }
    out += (i ? ", " : "") + who;
  }
  if (p.others > 0) out += " (and " + std::to_string(p.others) + " more tensors wait)";
  return out + "\n";
}

}  // namespace

std::string describe_rank(const RankEnding& e) {
  std::string out = e.name + " on " + e.host;
  if (e.pid > 0) out += " (pid " + std::to_string(e.pid) + ")";
  return out;
}

std::string clock_time(std::int64_t ms) {
  const time_t seconds = static_cast<time_t>(ms / 1000);
  struct tm local {};
  localtime_r(&seconds, &local);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%02d:%02d:%02d.%03d", local.tm_hour, local.tm_min, local.tm_sec,
                static_cast<int>(ms % 1000));
  return buf;
}

std::string render_text(const Verdict& v, const Facts& f) {
  if (v.outcome == Verdict::Outcome::kSucceeded) return "";
  // A job that never ran a rank (bad input found late, agents that did not start) has said all in its one line.
  const bool ran = std::any_of(f.endings.begin(), f.endings.end(),
                               [](const RankEnding& e) { return e.pid > 0 || e.state != RankEnding::State::kRunning; });
  if (!v.root && !ran && !f.fate.pending) return "";
  std::string out = headline(v, f.fate) + "\n";
  // Without a root cause (a hung job stopped from outside) the op the ranks wait in is the news: it comes first.
  const std::string waiting = f.fate.pending ? pending_line(*f.fate.pending, f, wall_clock_ms()) : "";
  if (v.root) {
    out += root_lines(*v.root, f);
  } else if (!f.fate.signal) {
    const bool outside = std::any_of(f.endings.begin(), f.endings.end(), [](const auto& e) { return e.outside; });
    std::string first = f.fate.first_message;
    if (first.starts_with("hvdrun: ")) first.erase(0, 8);
    out += outside ? "Root cause: none; no rank failed on its own, they were stopped from outside the job (scancel, "
                     "kill)\n"
                   : "Root cause: none found; " + (first.empty() ? "no rank failed on its own" : first) + "\n";
  }
  if (!v.root) out += waiting;
  if (!v.other_causes.empty()) out += "Later failures of their own:\n" + rank_lines(v.other_causes, f);
  if (!v.consequences.empty()) out += (v.root ? "Consequences:\n" : "Ranks:\n") + rank_lines(v.consequences, f);
  if (v.root) out += waiting;
  if (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

}  // namespace hvd::launcher::report
