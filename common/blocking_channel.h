// A blocking, authenticated frame channel over one TCP socket, for threads that do not run an event loop
// (the runtime's store client). Same handshake and frames as FramedConnection. Every wait is bounded.
#pragma once

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>

#include "common/frame.h"
#include "common/unique_fd.h"

namespace hvd {

// Connects to host:port, retrying refused connections until `timeout`; throws hvd::Error naming the address.
UniqueFd connect_tcp(const std::string& host, int port, std::chrono::milliseconds timeout);

// Reads/writes exactly n bytes or throws hvd::Error (timeout or closed), naming `what`.
void write_all(int fd, const void* data, std::size_t n, const std::string& what);
void read_exact(int fd, void* data, std::size_t n, std::chrono::milliseconds timeout, const std::string& what);

class BlockingChannel {
 public:
  // Runs the client side of the handshake; throws hvd::Error when the server does not accept the secret.
  BlockingChannel(UniqueFd fd, const std::string& secret, std::string peer, std::chrono::milliseconds timeout);
  void send(const nlohmann::json& message);
  nlohmann::json recv(std::chrono::milliseconds timeout);
  const std::string& peer() const { return peer_; }
  int fd() const { return fd_.get(); }

 private:
  BlockingChannel(UniqueFd fd, std::string peer, std::string key);
  UniqueFd fd_;
  std::string peer_;
  FrameSealer sealer_;
  FrameOpener opener_;
};

}  // namespace hvd
