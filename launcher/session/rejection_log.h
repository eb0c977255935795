// Warnings about connections the coordination server turned away, aggregated so that a flood of strangers
// cannot flood stderr: the first few rejections of a 10 s window are logged as they happen (one per address),
// the rest are counted per address and summed up when the window ends ("rejected 1200 more connections from
// 198.51.100.9 in the last 10 s (the last: no handshake within 10 s)"), at most kMaxAddresses lines of it.
#pragma once

#include <asio.hpp>
#include <chrono>
#include <map>
#include <string>

namespace hvd::launcher {

class RejectionLog {
 public:
  static constexpr std::chrono::seconds kWindow{10};
  static constexpr std::size_t kMaxAddresses = 5;

  explicit RejectionLog(asio::io_context& io) : timer_(io) {}
  // `peer` as "address:port"; the port is left out of the aggregation.
  void reject(const std::string& peer, const std::string& reason);
  // Logs what the current window has counted (at shutdown).
  void flush();

 private:
  struct Count {
    std::size_t unlogged = 0;
    std::string last_reason;
  };

  std::map<std::string, Count> counts_;  // this window's, by address
  std::size_t logged_ = 0;               // rejections logged one by one this window
  asio::steady_timer timer_;
  bool window_open_ = false;
};

}  // namespace hvd::launcher
