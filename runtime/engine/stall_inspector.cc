#include "runtime/engine/stall_inspector.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "runtime/engine/validation.h"

namespace hvd::detail {

StallInspector::StallInspector(std::chrono::seconds check_time, std::chrono::seconds shutdown_time,
                               RankNames names)
    : check_time_(check_time),
      shutdown_time_(shutdown_time),
      names_(std::move(names)),
      next_check_(Clock::now() + check_time) {}

StallInspector::Verdict StallInspector::inspect(const std::vector<PendingTensor>& pending, Clock::time_point now) {
  Verdict v;
  if (!due(now)) return v;
  // Checking more often than the threshold would only repeat the same warning.
  next_check_ = now + std::max<std::chrono::seconds>(check_time_ / 2, std::chrono::seconds(1));
  std::vector<std::string> waiting;
  int shown = 0;
  for (const auto& t : pending) {
    auto waited = std::chrono::duration_cast<std::chrono::seconds>(now - t.first_seen);
    if (waited < check_time_ || t.missing.empty()) continue;
    if (shown++ < 10) {
      waiting.push_back(std::string(name_of(t.type)) + " '" + t.name + "' waited " + std::to_string(waited.count()) +
                        " s for " + describe_ranks(t.missing, names_));
    }
    if (shutdown_time_.count() > 0 && waited >= shutdown_time_) {
      v.fail.push_back(t.name);
      for (int r : t.missing) {
        if (std::find(v.missing.begin(), v.missing.end(), r) == v.missing.end()) v.missing.push_back(r);
      }
    }
  }
  if (shown == 0) return v;
  if (shown > 10) waiting.push_back("... and " + std::to_string(shown - 10) + " more");
  v.warning =
      "stall: some ranks submitted these tensors and others did not (a rank skipped an op, called ops in "
      "another order, or is still busy):";
  for (const auto& line : waiting) v.warning += "\n  " + line;
  if (!v.fail.empty()) {
    v.stop = {.code = StopCode::kStall,
              .tensor = v.fail.front(),
              .seconds = static_cast<int>(shutdown_time_.count()),
              .waiting = std::move(waiting)};
  }
  spdlog::warn("{}", v.warning);
  return v;
}

}  // namespace hvd::detail
