// What an elastic job took out after failures (Horovod's blacklist): hosts (their agent was lost, or all their
// slots failed) and slots ("host/slot": a worker there failed), each in its own Blacklist. Without a cool-down
// range an entry stays out for good; with --blacklist-cooldown-range MIN MAX its n-th failure keeps it out for
// MIN * 2^(n-1) seconds, at most MAX, after which it may come back.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>

namespace hvd::launcher::elastic {

struct CooldownRange {
  double min_s = 0;
  double max_s = 0;
};

class Blacklist {
 public:
  using Clock = std::chrono::steady_clock;

  explicit Blacklist(std::optional<CooldownRange> cooldown) : cooldown_(cooldown) {}

  // Records a failure of `name` at `now`; returns how long it stays out (nullopt: for good).
  std::optional<std::chrono::milliseconds> add(const std::string& name, Clock::time_point now);
  bool contains(const std::string& name, Clock::time_point now) const;
  // Drops `name`'s entry and failure count (another entry, such as its host's, now keeps it out).
  void forget(const std::string& name) { entries_.erase(name); }
  // The soonest moment an entry comes back, if any does.
  std::optional<Clock::time_point> next_release(Clock::time_point now) const;

 private:
  struct Entry {
    int failures = 0;
    std::optional<Clock::time_point> until;  // nullopt: permanent
  };
  std::optional<CooldownRange> cooldown_;
  std::map<std::string, Entry> entries_;
};

}  // namespace hvd::launcher::elastic
