// Why a transport was stopped from outside (TcpMesh::abort, ShmGroup::interrupt: an elastic reset, hvdrun
// re-forming the job): the first stop given is kept, as a code and its facts (common/stop.h), for the error every
// later operation throws. stop() may come from any thread and is noexcept (a stop that cannot be copied keeps only
// its code); read stop() or message() once stopped() is true.
#pragma once

#include <atomic>
#include <mutex>
#include <string>

#include "common/stop.h"

namespace hvd::detail {

class StopReason {
 public:
  void stop(const Stop& stop) noexcept {
    {
      std::lock_guard lock(mutex_);
      if (stop_.code == StopCode::kNone) {
        stop_.code = stop.code;
        try {
          stop_ = stop;
        } catch (...) {
        }
      }
    }
    stopped_.store(true, std::memory_order_seq_cst);
  }
  bool stopped() const noexcept { return stopped_.load(std::memory_order_acquire); }
  Stop stop() const {
    std::lock_guard lock(mutex_);
    return stop_;
  }
  std::string message() const { return describe(stop()); }  // the stop in words (common/stop.h)

 private:
  std::atomic<bool> stopped_{false};
  mutable std::mutex mutex_;
  Stop stop_;  // guarded by mutex_; set before stopped_
};

}  // namespace hvd::detail
