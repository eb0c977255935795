#include "runtime/comm/tcp/mesh.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>

#include "common/address.h"
#include "common/blocking_channel.h"
#include "common/error.h"
#include "common/frame.h"
#include "common/handshake.h"

namespace hvd::detail {

TcpMesh::TcpMesh(TcpListener& listener, std::vector<PeerInfo> peers, int rank, const std::string& secret,
                 const std::string& job_id, std::chrono::milliseconds timeout)
    : peers_(std::move(peers)), rank_(rank), links_(peers_.size()) {
  for (int j = 0; j < rank_; ++j) dial(j, secret, job_id, timeout);
  for (int j = rank_ + 1; j < size(); ++j) accept_one(listener, secret, job_id, timeout);
  for (auto& fd : links_) {
    if (!fd.valid()) continue;
    tune_link_socket(fd.get());
    ::fcntl(fd.get(), F_SETFL, ::fcntl(fd.get(), F_GETFL) | O_NONBLOCK);
  }
}

void TcpMesh::dial(int to, const std::string& secret, const std::string& job_id, std::chrono::milliseconds timeout) {
  const auto& p = peers_[static_cast<std::size_t>(to)];
  const Address address = parse_address(p.address, "data-plane address of " + describe(p, true));
  const std::string what = "data-plane handshake with " + describe(p, true);
  UniqueFd fd = connect_tcp(address.host, address.port, timeout);
  HandshakeClient client(secret);
  std::string hello(kServerHelloSize, '\0');
  read_exact(fd.get(), hello.data(), hello.size(), timeout, what);
  std::string proof = client.answer(hello);
  write_all(fd.get(), proof.data(), proof.size(), what);
  std::string server_proof(kServerProofSize, '\0');
  read_exact(fd.get(), server_proof.data(), server_proof.size(), timeout, what + " (wrong job secret?)");
  client.verify_server(server_proof);
  std::string frame = FrameSealer(client.session_key()).seal({{"rank", rank_}, {"job", job_id}});
  write_all(fd.get(), frame.data(), frame.size(), what);
  links_[static_cast<std::size_t>(to)] = std::move(fd);
}

void TcpMesh::accept_one(TcpListener& listener, const std::string& secret, const std::string& job_id,
                         std::chrono::milliseconds timeout) {
  for (;;) {
    UniqueFd fd = listener.accept(timeout);
    try {
      const std::string what = "data-plane handshake on " + listener.address();
      HandshakeServer server(secret);
      std::string hello = server.hello();
      write_all(fd.get(), hello.data(), hello.size(), what);
      std::string proof(kClientProofSize, '\0');
      read_exact(fd.get(), proof.data(), proof.size(), timeout, what);
      std::string answer = server.verify_client(proof);
      write_all(fd.get(), answer.data(), answer.size(), what);
      std::string header(kFrameHeaderSize, '\0');
      read_exact(fd.get(), header.data(), header.size(), timeout, what);
      std::string body(FrameOpener::body_size(header), '\0');
      read_exact(fd.get(), body.data(), body.size(), timeout, what);
      auto hi = FrameOpener(server.session_key()).open(header, body);
      int from = hi.at("rank").get<int>();
      if (hi.at("job").get<std::string>() != job_id || from <= rank_ || from >= size() ||
          links_[static_cast<std::size_t>(from)].valid()) {
        throw ProtocolError("unexpected data-plane peer claiming rank " + std::to_string(from));
      }
      links_[static_cast<std::size_t>(from)] = std::move(fd);
      return;
    } catch (const ProtocolError&) {
      continue;  // a stranger or a stale connection: drop it, keep waiting for the real peer
    }
  }
}

void TcpMesh::check() const {
  if (abort_.stopped()) throw_aborted();
  if (failed_) throw Error(ErrorKind::kPeerLost, *failed_, {.peer = failed_peer_});
}

void TcpMesh::fail(const std::string& reason) noexcept {
  if (!failed_) {
    try {
      failed_ = reason;
    } catch (...) {
    }
  }
  for (auto& fd : links_) {
    if (fd.valid()) ::shutdown(fd.get(), SHUT_RDWR);
  }
}

void TcpMesh::abort(const Stop& stop) noexcept {
  abort_.stop(stop);
  // Only shutdown(): the descriptors stay open until the mesh goes, so a concurrent sendrecv never sees a reused one.
  for (auto& fd : links_) {
    if (fd.valid()) ::shutdown(fd.get(), SHUT_RDWR);
  }
}

void TcpMesh::throw_aborted() const { throw Error(ErrorKind::kMembership, abort_.message()); }

void TcpMesh::link_error(int peer, const char* what, const std::string& detail) {
  if (abort_.stopped()) throw_aborted();  // the links broke because we shut them down
  std::string reason = std::string(what) + " " + describe(peers_[static_cast<std::size_t>(peer)], true) + ": " + detail;
  const int named = job_rank(peers_[static_cast<std::size_t>(peer)]);
  if (!failed_) failed_peer_ = named;
  fail(reason);
  throw Error(ErrorKind::kPeerLost, reason, {.peer = named});
}

void TcpMesh::sendrecv(int to, const void* send, std::size_t send_bytes, int from, void* recv, std::size_t recv_bytes) {
  check();
  auto* s = static_cast<const char*>(send);
  auto* r = static_cast<char*>(recv);
  std::size_t sent = to < 0 ? send_bytes : 0, got = from < 0 ? recv_bytes : 0;
  while (sent < send_bytes || got < recv_bytes) {
    bool progress = false;
    if (sent < send_bytes) {
      ssize_t w = ::send(links_[to].get(), s + sent, send_bytes - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (w > 0) {
        sent += static_cast<std::size_t>(w);
        progress = true;
      } else if (w < 0 && errno != EAGAIN && errno != EINTR) {
        link_error(to, "send to", std::strerror(errno));
      }
    }
    if (got < recv_bytes) {
      ssize_t n = ::recv(links_[from].get(), r + got, recv_bytes - got, MSG_DONTWAIT);
      if (n > 0) {
        got += static_cast<std::size_t>(n);
        progress = true;
      } else if (n == 0) {
        link_error(from, "receive from", "connection closed (the peer exited or gave up)");
      } else if (errno != EAGAIN && errno != EINTR) {
        link_error(from, "receive from", std::strerror(errno));
      }
    }
    if (progress) continue;
    pollfd fds[2];
    int nfds = 0;
    if (sent < send_bytes) fds[nfds++] = {links_[to].get(), POLLOUT, 0};
    if (got < recv_bytes) fds[nfds++] = {links_[from].get(), POLLIN, 0};
    // Sleeping is bounded only by the peers: a dead one closes its sockets (or keepalive and the user timeout
    // notice a vanished host), which wakes this poll.
    if (::poll(fds, static_cast<nfds_t>(nfds), 1000) < 0 && errno != EINTR) {
      link_error(to >= 0 ? to : from, "poll on link to", std::strerror(errno));
    }
  }
}

}  // namespace hvd::detail
