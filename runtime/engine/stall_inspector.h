// Watches the coordinator's table of tensors that some ranks submitted and others did not. Past
// HOROVOD_STALL_CHECK_TIME_SECONDS it warns, naming each tensor, the ranks that are missing and their hosts; past
// HOROVOD_STALL_SHUTDOWN_TIME_SECONDS (when > 0) it tells the controller to fail those tensors everywhere and stop.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "runtime/engine/message.h"
#include "runtime/engine/rank_names.h"

namespace hvd::detail {

struct PendingTensor {
  std::string name;
  OpType type = OpType::kAllreduce;
  std::vector<int> missing;  // ranks that have not submitted it (and have not joined)
  std::chrono::steady_clock::time_point first_seen;
};

class StallInspector {
 public:
  using Clock = std::chrono::steady_clock;
  StallInspector(std::chrono::seconds check_time, std::chrono::seconds shutdown_time, RankNames names);

  bool enabled() const { return check_time_.count() > 0; }
  bool due(Clock::time_point now) const { return enabled() && now >= next_check_; }

  struct Verdict {
    std::string warning;            // empty: nothing stalled (already logged when not)
    std::vector<std::string> fail;  // stalled past the shutdown time
    Stop stop;                      // with `fail`: a kStall stop (common/stop.h), the waiting tensors its facts
    std::vector<int> missing;       // with `fail`: the ranks the failed tensors waited for
  };
  Verdict inspect(const std::vector<PendingTensor>& pending, Clock::time_point now);

 private:
  std::chrono::seconds check_time_, shutdown_time_;
  RankNames names_;
  Clock::time_point next_check_;
};

}  // namespace hvd::detail
