#include "common/blocking_channel.h"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "common/address.h"
#include "common/error.h"
#include "common/handshake.h"

namespace hvd {
namespace {
using Clock = std::chrono::steady_clock;

int remaining_ms(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left < 0 ? 0 : static_cast<int>(left);
}

std::string handshake_session_key(int fd, const std::string& secret, const std::string& peer,
                                   std::chrono::milliseconds timeout) {
  HandshakeClient client(secret);
  std::string hello(kServerHelloSize, '\0');
  read_exact(fd, hello.data(), hello.size(), timeout, "handshake with " + peer);
  std::string proof = client.answer(hello);
  write_all(fd, proof.data(), proof.size(), "handshake with " + peer);
  std::string server_proof(kServerProofSize, '\0');
  read_exact(fd, server_proof.data(), server_proof.size(), timeout,
             "handshake with " + peer + " (the server rejected the job secret?)");
  client.verify_server(server_proof);
  return client.session_key();
}
}  // namespace

UniqueFd connect_tcp(const std::string& host, int port, std::chrono::milliseconds timeout) {
  auto deadline = Clock::now() + timeout;
  std::string address = host + ":" + std::to_string(port);
  const Resolved found = resolve(host, port);
  if (!found) throw Error(ErrorKind::kUsage, "cannot resolve " + address + ": " + found.error);
  std::string last_error = "timed out";
  for (;;) {
    for (const addrinfo* ai = found.list.get(); ai; ai = ai->ai_next) {
      UniqueFd fd(::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol));
      if (!fd.valid()) continue;
      if (::connect(fd.get(), ai->ai_addr, ai->ai_addrlen) == 0) {
        int one = 1;
        ::setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        return fd;
      }
      last_error = std::strerror(errno);
    }
    if (Clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  throw Error(ErrorKind::kBackend, "cannot connect to " + address + ": " + last_error);
}

void write_all(int fd, const void* data, std::size_t n, const std::string& what) {
  auto* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t w = ::send(fd, p, n, MSG_NOSIGNAL);
    if (w < 0) {
      if (errno == EINTR) continue;
      throw Error(ErrorKind::kBackend, what + ": write failed: " + std::strerror(errno));
    }
    p += w;
    n -= static_cast<std::size_t>(w);
  }
}

void read_exact(int fd, void* data, std::size_t n, std::chrono::milliseconds timeout, const std::string& what) {
  auto deadline = Clock::now() + timeout;
  auto* p = static_cast<char*>(data);
  while (n > 0) {
    pollfd pfd{fd, POLLIN, 0};
    int rc = ::poll(&pfd, 1, remaining_ms(deadline));
    if (rc < 0 && errno == EINTR) continue;
    if (rc == 0)
      throw Error(ErrorKind::kBackend, what + ": timed out after " + std::to_string(timeout.count()) + " ms");
    ssize_t r = ::recv(fd, p, n, 0);
    if (r == 0) throw Error(ErrorKind::kBackend, what + ": connection closed by peer");
    if (r < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      throw Error(ErrorKind::kBackend, what + ": read failed: " + std::strerror(errno));
    }
    p += r;
    n -= static_cast<std::size_t>(r);
  }
}

BlockingChannel::BlockingChannel(UniqueFd fd, const std::string& secret, std::string peer,
                                 std::chrono::milliseconds timeout)
    : BlockingChannel(std::move(fd), std::move(peer), std::string()) {
  std::string key = handshake_session_key(fd_.get(), secret, peer_, timeout);
  sealer_ = FrameSealer(key);
  opener_ = FrameOpener(key);
}

BlockingChannel::BlockingChannel(UniqueFd fd, std::string peer, std::string key)
    : fd_(std::move(fd)), peer_(std::move(peer)), sealer_(key), opener_(key) {}

void BlockingChannel::send(const nlohmann::json& message) {
  std::string frame = sealer_.seal(message);
  write_all(fd_.get(), frame.data(), frame.size(), "send to " + peer_);
}

nlohmann::json BlockingChannel::recv(std::chrono::milliseconds timeout) {
  std::string header(kFrameHeaderSize, '\0');
  read_exact(fd_.get(), header.data(), header.size(), timeout, "receive from " + peer_);
  std::string body(FrameOpener::body_size(header), '\0');
  read_exact(fd_.get(), body.data(), body.size(), timeout, "receive from " + peer_);
  return opener_.open(header, body);
}

}  // namespace hvd
