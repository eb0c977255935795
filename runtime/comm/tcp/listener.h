// The data-plane listener: binds a TCP port (0 = any free one) on the given address or on all interfaces and
// says which "ip:port" the peers should dial: the bind address when one is given, else this host's first
// non-loopback IPv4 address (127.0.0.1 when there is none).
#pragma once

#include <chrono>
#include <string>

#include "common/unique_fd.h"

namespace hvd::detail {

class TcpListener {
 public:
  explicit TcpListener(const std::string& bind_address);
  const std::string& address() const { return address_; }
  // Throws hvd::Error when nobody connects within `timeout`.
  UniqueFd accept(std::chrono::milliseconds timeout);

 private:
  UniqueFd fd_;
  std::string address_;
};

// Socket options every data-plane link gets: no Nagle, keepalive and a user timeout of a few seconds so that a
// vanished host is noticed even when nothing is in flight.
void tune_link_socket(int fd);

}  // namespace hvd::detail
