#include "launcher/session/connection_gate.h"

#include <algorithm>
#include <string>

namespace hvd::launcher {

bool ConnectionGate::has_room() {
  if (pending_.size() < kMaxPending) return true;
  if (std::chrono::steady_clock::now() - pending_.front().since < kStaleAfter) return false;
  auto oldest = pending_.front().connection.lock();
  pending_.pop_front();
  if (oldest) oldest->close("dropped: " + std::to_string(kMaxPending) + " connections were waiting to authenticate");
  return true;
}

void ConnectionGate::admit(const std::shared_ptr<FramedConnection>& connection) {
  pending_.push_back({connection, connection.get(), std::chrono::steady_clock::now()});
  if (!sweeping_) do_sweep();
}

void ConnectionGate::leave(const FramedConnection* connection) {
  auto it = std::find_if(pending_.begin(), pending_.end(), [&](const Pending& p) { return p.key == connection; });
  if (it != pending_.end()) pending_.erase(it);
}

void ConnectionGate::close() {
  std::error_code ignored;
  sweep_.cancel();
  pending_.clear();
}

void ConnectionGate::do_sweep() {
  if (pending_.empty()) {
    sweeping_ = false;
    return;
  }
  sweeping_ = true;
  sweep_.expires_at(pending_.front().since + kHandshakeDeadline);
  sweep_.async_wait([this](std::error_code ec) {
    if (ec) {
      sweeping_ = false;
      return;
    }
    const auto now = std::chrono::steady_clock::now();
    while (!pending_.empty() && now - pending_.front().since >= kHandshakeDeadline) {
      auto late = pending_.front().connection.lock();
      pending_.pop_front();
      if (late) late->close("no handshake within " + std::to_string(kHandshakeDeadline.count()) + " s");
    }
    do_sweep();
  });
}

}  // namespace hvd::launcher
