#include "launcher/elastic/blacklist.h"

#include <algorithm>
#include <cmath>

namespace hvd::launcher::elastic {

std::optional<std::chrono::milliseconds> Blacklist::add(const std::string& name, Clock::time_point now) {
  Entry& entry = entries_[name];
  ++entry.failures;
  if (!cooldown_) {
    entry.until.reset();
    return std::nullopt;
  }
  // Exponential backoff per failure, as Horovod's HostState does, bounded by the range.
  const double seconds = std::clamp(cooldown_->min_s * std::ldexp(1.0, std::min(entry.failures - 1, 30)),
                                    cooldown_->min_s, cooldown_->max_s);
  const auto delay = std::chrono::milliseconds(static_cast<long long>(seconds * 1000));
  entry.until = now + delay;
  return delay;
}

bool Blacklist::contains(const std::string& name, Clock::time_point now) const {
  auto it = entries_.find(name);
  if (it == entries_.end() || it->second.failures == 0) return false;
  return !it->second.until || now < *it->second.until;
}

std::optional<Blacklist::Clock::time_point> Blacklist::next_release(Clock::time_point now) const {
  std::optional<Clock::time_point> soonest;
  for (const auto& [name, entry] : entries_) {
    if (!entry.until || *entry.until <= now) continue;
    if (!soonest || *entry.until < *soonest) soonest = entry.until;
  }
  return soonest;
}

}  // namespace hvd::launcher::elastic
