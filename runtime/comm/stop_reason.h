// Why a transport was stopped from outside (TcpMesh::abort, ShmGroup::interrupt: an elastic reset, a shutdown): the
// first reason given is kept for the error every later operation throws. stop() may come from any thread and is
// noexcept (a reason that cannot be copied stays empty); read reason() once stopped() is true.
#pragma once

#include <atomic>
#include <mutex>
#include <string>

namespace hvd::detail {

class StopReason {
 public:
  void stop(const std::string& reason) noexcept {
    {
      std::lock_guard lock(mutex_);
      if (reason_.empty()) {
        try {
          reason_ = reason;
        } catch (...) {
        }
      }
    }
    stopped_.store(true, std::memory_order_seq_cst);
  }
  bool stopped() const noexcept { return stopped_.load(std::memory_order_acquire); }
  std::string reason() const {
    std::lock_guard lock(mutex_);
    return reason_;
  }

 private:
  std::atomic<bool> stopped_{false};
  mutable std::mutex mutex_;
  std::string reason_;  // guarded by mutex_; set before stopped_
};

}  // namespace hvd::detail
