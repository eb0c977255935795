#include "launcher/session/rejection_log.h"

#include <spdlog/spdlog.h>

#include "common/address.h"

namespace hvd::launcher {

void RejectionLog::reject(const std::string& peer, const std::string& reason) {
  const std::string address = host_of(peer);
  if (!window_open_) {
    window_open_ = true;
    timer_.expires_after(kWindow);
    timer_.async_wait([this](std::error_code ec) {
      if (!ec) flush();
    });
  }
  auto [it, first_from_address] = counts_.try_emplace(address);
  if (first_from_address && logged_ < kMaxAddresses) {
    ++logged_;
    spdlog::warn("rejected a connection from {}: {}", peer, reason);
    return;
  }
  ++it->second.unlogged;
  it->second.last_reason = reason;
}

void RejectionLog::flush() {
  std::size_t lines = 0, other_connections = 0, other_addresses = 0;
  for (const auto& [address, count] : counts_) {
    if (count.unlogged == 0) continue;
    if (lines++ < kMaxAddresses) {
      spdlog::warn("rejected {} more connection{} from {} in the last {} s (the last: {})", count.unlogged,
                   count.unlogged == 1 ? "" : "s", address, kWindow.count(), count.last_reason);
    } else {
      other_connections += count.unlogged;
      ++other_addresses;
    }
  }
  if (other_addresses > 0) {
    spdlog::warn("rejected {} more connections from {} other addresses in the last {} s", other_connections,
                 other_addresses, kWindow.count());
  }
  counts_.clear();
  logged_ = 0;
  window_open_ = false;
  timer_.cancel();
}

}  // namespace hvd::launcher
