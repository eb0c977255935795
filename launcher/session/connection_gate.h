// Keeps strangers on the coordination port from holding hvdrun's descriptors: a connection must authenticate
// and send its hello within kHandshakeDeadline or it is closed; at most kMaxPending connections may be at that
// stage at once. When that many wait, the oldest is dropped if it has waited kStaleAfter (a real agent or
// worker finishes its handshake in milliseconds); otherwise accepting pauses (the kernel's backlog holds the
// rest) until a place frees. All calls happen on the io_context's thread.
#pragma once

#include <asio.hpp>
#include <chrono>
#include <deque>
#include <memory>

#include "common/framed_connection.h"

namespace hvd::launcher {

class ConnectionGate {
 public:
  static constexpr std::chrono::seconds kHandshakeDeadline{10};
  static constexpr std::chrono::seconds kStaleAfter{2};
  static constexpr std::size_t kMaxPending = 128;

  explicit ConnectionGate(asio::io_context& io) : sweep_(io) {}
  // True when one more connection may be accepted now (possibly after dropping the oldest waiting one).
  bool has_room();
  // A connection starts its handshake.
  void admit(const std::shared_ptr<FramedConnection>& connection);
  // It authenticated and said hello, or it closed: no longer waiting.
  void leave(const FramedConnection* connection);
  std::size_t pending() const { return pending_.size(); }
  void close();

 private:
  struct Pending {
    std::weak_ptr<FramedConnection> connection;
    const FramedConnection* key;
    std::chrono::steady_clock::time_point since;
  };
  void do_sweep();

  std::deque<Pending> pending_;  // oldest first
  asio::steady_timer sweep_;
  bool sweeping_ = false;
};

}  // namespace hvd::launcher
