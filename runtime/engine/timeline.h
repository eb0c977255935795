// HOROVOD_TIMELINE: a Chrome trace (chrome://tracing, Perfetto) of what the engine did, written by rank 0: one
// complete event per negotiation cycle and per executed operation, with the tensor names as arguments. Only the
// background thread calls it; disabled (no file, no cost) when the path is empty.
#pragma once

#include <chrono>
#include <fstream>
#include <string>
#include <vector>

namespace hvd::detail {

class Timeline {
 public:
  using Clock = std::chrono::steady_clock;
  Timeline(const std::string& path, int rank);
  ~Timeline();
  bool enabled() const { return out_.is_open(); }
  void event(const std::string& name, const std::string& category, Clock::time_point start, Clock::time_point end,
             const std::vector<std::string>& tensors = {});

 private:
  std::ofstream out_;
  Clock::time_point origin_ = Clock::now();
  bool first_ = true;
};

}  // namespace hvd::detail
