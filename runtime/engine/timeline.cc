#include "runtime/engine/timeline.h"

#include <spdlog/spdlog.h>

#include <nlohmann/json.hpp>

#include "runtime/engine/timeline_file.h"

namespace hvd::detail {
namespace {

// Chrome trace threads of one rank's process.
enum Track { kCycles = 0, kNegotiation = 1, kOps = 2 };

std::int64_t micros(Timeline::Clock::duration d) {
  return std::chrono::duration_cast<std::chrono::microseconds>(d).count();
}
// Timestamps are CLOCK_MONOTONIC (steady_clock's epoch, the boot), the same clock for every rank of a host, so
// the ranks' files line up when loaded together.
std::int64_t stamp(Timeline::Clock::time_point t) { return micros(t.time_since_epoch()); }

}  // namespace

std::string Timeline::file_for_rank(const std::string& path, int rank) {
  if (rank == 0) return path;
  const auto slash = path.find_last_of('/');
  const auto dot = path.find_last_of('.');
  const bool has_ext = dot != std::string::npos && (slash == std::string::npos || dot > slash + 1);
  const std::string stem = has_ext ? path.substr(0, dot) : path;
  const std::string ext = has_ext ? path.substr(dot) : "";
  return stem + "." + std::to_string(rank) + ext;
}

Timeline::Timeline(const std::string& path, int rank, bool mark_cycles, std::size_t max_bytes)
    : rank_(rank), max_bytes_(max_bytes) {
  if (path.empty()) return;
  try {
    start(path, mark_cycles);
  } catch (const std::exception& e) {
    spdlog::warn("HOROVOD_TIMELINE: {}; no timeline", e.what());
  }
}

Timeline::~Timeline() { stop(); }

void Timeline::start(const std::string& path, bool mark_cycles) {
  auto file = std::make_unique<TimelineFile>(file_for_rank(path, rank_), max_bytes_);
  std::lock_guard lock(mutex_);
  file_ = std::move(file);
  mark_cycles_ = mark_cycles;
  started_ = Clock::now();
  requested_.clear();
  // Metadata first, so a viewer names the rank's process and tracks however little follows.
  const std::string process = "rank " + std::to_string(rank_);
  write(nlohmann::json{{"name", "process_name"}, {"ph", "M"}, {"pid", rank_}, {"args", {{"name", process}}}}.dump());
  write(nlohmann::json{{"name", "process_sort_index"}, {"ph", "M"}, {"pid", rank_}, {"args", {{"sort_index", rank_}}}}
            .dump());
  for (auto [track, name] : {std::pair{kCycles, "cycles"}, {kNegotiation, "negotiation"}, {kOps, "ops"}}) {
    write(
        nlohmann::json{{"name", "thread_name"}, {"ph", "M"}, {"pid", rank_}, {"tid", track}, {"args", {{"name", name}}}}
            .dump());
  }
  enabled_.store(true, std::memory_order_relaxed);
}

void Timeline::stop() {
  std::lock_guard lock(mutex_);
  enabled_.store(false, std::memory_order_relaxed);
  file_.reset();
  requested_.clear();
}

void Timeline::requested(const std::string& tensor, Clock::time_point when) {
  if (!enabled()) return;
  std::lock_guard lock(mutex_);
  requested_.try_emplace(tensor, when);
}

void Timeline::op(const Response& r, Clock::time_point start, Clock::time_point end) {
  if (!enabled()) return;
  std::lock_guard lock(mutex_);
  if (!file_ || start < started_) return;
  const char* type = name_of(r.type);
  // Negotiation: from the first of its tensors this rank asked for until the op could run on every rank.
  Clock::time_point first = start;
  for (const auto& n : r.names) {
    if (auto it = requested_.find(n); it != requested_.end()) {
      first = std::min(first, it->second);
      requested_.erase(it);
    }
  }
  if (first < start) {
    write(nlohmann::json{{"name", std::string("negotiate ") + type},
                         {"cat", "negotiation"},
                         {"ph", "X"},
                         {"pid", rank_},
                         {"tid", kNegotiation},
                         {"ts", stamp(first)},
                         {"dur", micros(start - first)},
                         {"args", {{"tensors", r.names}}}}
              .dump());
  }
  nlohmann::json e = {{"name", type},
                      {"cat", r.error.empty() ? "op" : "error"},
                      {"ph", "X"},
                      {"pid", rank_},
                      {"tid", kOps},
                      {"ts", stamp(start)},
                      {"dur", micros(end - start)},
                      {"args", {{"tensors", r.names}}}};
  if (!r.error.empty()) e["args"]["error"] = r.error;
  write(e.dump());
}

void Timeline::cycle(Clock::time_point start, Clock::time_point end, bool full_negotiation) {
  if (!enabled()) return;
  std::lock_guard lock(mutex_);
  if (!file_ || start < started_) return;
  if (full_negotiation) {
    write(nlohmann::json{{"name", "negotiate"},
                         {"cat", "cycle"},
                         {"ph", "X"},
                         {"pid", rank_},
                         {"tid", kCycles},
                         {"ts", stamp(start)},
                         {"dur", micros(end - start)}}
              .dump());
  }
  if (mark_cycles_) {
    write(nlohmann::json{{"name", "cycle"},
                         {"cat", "cycle"},
                         {"ph", "i"},
                         {"s", "p"},
                         {"pid", rank_},
                         {"tid", kCycles},
                         {"ts", stamp(start)}}
              .dump());
  }
}

void Timeline::write(const std::string& record) {
  if (!file_ || file_->append(record)) return;
  spdlog::warn("timeline '{}' reached its cap of {} bytes (HOROVOD_TIMELINE_MAX_BYTES); it stops here, complete",
               file_->path(), max_bytes_);
  enabled_.store(false, std::memory_order_relaxed);
  file_.reset();
  requested_.clear();
}

}  // namespace hvd::detail
