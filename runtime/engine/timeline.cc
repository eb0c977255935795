#include "runtime/engine/timeline.h"

#include <spdlog/spdlog.h>

#include <nlohmann/json.hpp>

namespace hvd::detail {

Timeline::Timeline(const std::string& path, int rank) {
  if (path.empty() || rank != 0) return;
  out_.open(path, std::ios::trunc);
  if (!out_) {
    spdlog::warn("HOROVOD_TIMELINE={}: cannot open the file for writing; no timeline", path);
    return;
  }
  out_ << "[\n";
}

Timeline::~Timeline() {
  if (out_.is_open()) out_ << "\n]\n";
}

void Timeline::event(const std::string& name, const std::string& category, Clock::time_point start,
                     Clock::time_point end, const std::vector<std::string>& tensors) {
  if (!enabled()) return;
  using std::chrono::duration_cast;
  using std::chrono::microseconds;
  nlohmann::json e = {{"name", name},
                      {"cat", category},
                      {"ph", "X"},
                      {"pid", 0},
                      {"tid", 0},
                      {"ts", duration_cast<microseconds>(start - origin_).count()},
                      {"dur", duration_cast<microseconds>(end - start).count()}};
  if (!tensors.empty()) e["args"] = {{"tensors", tensors}};
  out_ << (first_ ? "" : ",\n") << e.dump();
  first_ = false;
}

}  // namespace hvd::detail
