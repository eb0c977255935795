// Hosts taken out of an elastic job because a worker there failed or its agent was lost (Horovod's blacklist).
// Without a cool-down range a host stays out for good; with --blacklist-cooldown-range MIN MAX its n-th failure
// keeps it out for MIN * 2^(n-1) seconds, at most MAX, after which discovery may bring it back.
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

  // Records a failure of `host` at `now`; returns how long it stays out (nullopt: for good).
  std::optional<std::chrono::milliseconds> add(const std::string& host, Clock::time_point now);
  bool contains(const std::string& host, Clock::time_point now) const;
  // The soonest moment a blacklisted host comes back, if any does.
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
