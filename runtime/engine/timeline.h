// The timeline: a Chrome trace (chrome://tracing, Perfetto) of what this rank's engine did. Every rank writes
// its own file (rank 0 the path as given, rank r "<stem>.<r><ext>"), events under pid = rank: per response the
// negotiation wait (first enqueue of its tensors to execution) and the op, per full negotiation a cycle span,
// and with mark_cycles an instant event per cycle. The file is a JSON array that stays valid after every
// append (timeline_file.h), so a job killed by SIGKILL still leaves a parseable trace; it stops growing at
// max_bytes. start()/stop() may come from any thread at run time; events come from the background thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "runtime/engine/message.h"

namespace hvd::detail {

class TimelineFile;

class Timeline {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr std::size_t kDefaultMaxBytes = std::size_t{1} << 30;

  // path empty: off until start(). The file name is made per rank from path (file_for_rank).
  Timeline(const std::string& path, int rank, bool mark_cycles, std::size_t max_bytes);
  ~Timeline();

  // Opens (truncates) this rank's file for `path` and starts recording; replaces a running timeline.
  // Throws hvd::Error naming the file when it cannot be written.
  void start(const std::string& path, bool mark_cycles);
  void stop();  // closes the file, which is complete JSON; idempotent
  bool enabled() const { return enabled_.load(std::memory_order_relaxed); }

  // Hooks the engine calls (each returns at once when disabled).
  void requested(const std::string& tensor, Clock::time_point when);  // a request left the queue
  void op(const Response& r, Clock::time_point start, Clock::time_point end);
  void cycle(Clock::time_point start, Clock::time_point end, bool full_negotiation);

  static std::string file_for_rank(const std::string& path, int rank);

 private:
  void write(const std::string& record);  // caller holds mutex_

  const int rank_;
  const std::size_t max_bytes_;
  std::atomic<bool> enabled_{false};
  std::mutex mutex_;  // guards everything below
  std::unique_ptr<TimelineFile> file_;
  bool mark_cycles_ = false;
  // When start() opened the file: an op or cycle that began earlier is not recorded (an op's handle completes
  // before its event is written, so an op done before start_timeline() returned could otherwise land in the file).
  Clock::time_point started_;
  std::unordered_map<std::string, Clock::time_point> requested_;  // tensor -> when this rank asked for it
};

}  // namespace hvd::detail
