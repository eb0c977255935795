// The agent's side of output flow control (see common/protocol.h): how much of its workers' output is in flight
// to hvdrun. spend() when a batch is sent, refund() when hvdrun credits it; the supervisor stops reading the
// workers' pipes while the window is closed. A limit of 0 means none (a launcher that sends no credit).
#pragma once

#include <cstddef>

namespace hvd::agent {

class OutputWindow {
 public:
  void set_limit(std::size_t limit) { limit_ = limit; }
  // True when this send closed the window.
  bool spend(std::size_t bytes) {
    const bool was_open = open();
    in_flight_ += bytes;
    return was_open && !open();
  }
  // True when this credit reopened the window.
  bool refund(std::size_t bytes) {
    const bool was_open = open();
    in_flight_ -= bytes < in_flight_ ? bytes : in_flight_;
    return !was_open && open();
  }
  bool open() const { return limit_ == 0 || in_flight_ < limit_; }
  std::size_t in_flight() const { return in_flight_; }

 private:
  std::size_t limit_ = 0;
  std::size_t in_flight_ = 0;
};

}  // namespace hvd::agent
