#include "store/tcp_store.h"

#include <sys/socket.h>

#include "common/address.h"
#include "hvd/error.h"

namespace hvd::detail {
namespace {
// Besides the server-side wait, a reply may take this long to arrive.
constexpr std::chrono::milliseconds kReplySlack{10000};
}  // namespace

TcpStore::TcpStore(const std::string& host, int port, const std::string& secret, int rank,
                   std::chrono::milliseconds connect_timeout)
    : address_(host + ":" + std::to_string(port)) {
  channel_ = std::make_unique<BlockingChannel>(connect_tcp(host, port, connect_timeout), secret, "store at " + address_,
                                               connect_timeout);
  channel_->send({{"type", "hello"}, {"role", "store"}, {"rank", rank}});
  open_fd_ = channel_->fd();
}

std::unique_ptr<TcpStore> TcpStore::connect(const std::string& address, const std::string& secret, int rank,
                                            std::chrono::milliseconds connect_timeout) {
  const Address parsed = parse_address(address, "store address");
  return std::make_unique<TcpStore>(parsed.host, parsed.port, secret, rank, connect_timeout);
}

nlohmann::json TcpStore::request(const nlohmann::json& message, std::chrono::milliseconds reply_timeout) {
  std::lock_guard lock(mutex_);
  if (!channel_) throw Error(ErrorKind::kBackend, describe() + " is unusable after an earlier failure: " + broken_);
  nlohmann::json reply;
  try {
    if (interrupted_.load()) throw Error(ErrorKind::kBackend, "the connection was shut down (interrupted)");
    channel_->send(message);
    reply = channel_->recv(reply_timeout);
  } catch (const std::exception& e) {
    broken_ = interrupted_.load() ? std::string("the connection was shut down (interrupted)") : e.what();
    {
      std::lock_guard fd_lock(fd_mutex_);
      open_fd_ = -1;
    }
    channel_.reset();
    throw Error(ErrorKind::kBackend, std::string(message.value("op", "request")) + " '" + message.value("key", "") +
                                         "' on " + describe() + " failed: " + broken_);
  }
  if (!reply.is_object() || !reply.value("ok", false)) {
    std::string why = reply.is_object() ? reply.value("error", reply.dump()) : reply.dump();
    throw Error(ErrorKind::kBackend, describe() + ": " + why);
  }
  return reply;
}

void TcpStore::set(const std::string& key, const std::string& value) {
  request({{"op", "set"}, {"key", key}, {"value", value}}, kReplySlack);
}

std::string TcpStore::get(const std::string& key, std::chrono::milliseconds timeout) {
  auto reply = request({{"op", "get"}, {"key", key}, {"timeout_ms", timeout.count()}}, timeout + kReplySlack);
  return reply.at("value").get<std::string>();
}

void TcpStore::interrupt() noexcept {
  interrupted_.store(true);
  std::lock_guard lock(fd_mutex_);
  // The socket stays open (the channel owns it) so its number cannot be reused under a waiting request.
  if (open_fd_ >= 0) ::shutdown(open_fd_, SHUT_RDWR);
}

RendezvousAnswer TcpStore::rendezvous(const std::string& worker, std::int64_t after,
                                      std::chrono::milliseconds timeout) {
  nlohmann::json reply;
  try {
    reply = request({{"op", "rendezvous"}, {"worker", worker}, {"after", after}}, timeout + kReplySlack);
  } catch (const Error& e) {
    // The request itself went through and hvdrun said no: it has no place for this worker.
    if (channel_usable()) {
      throw Error(ErrorKind::kMembership, "elastic rendezvous of worker " + worker + " refused by " + e.what());
    }
    throw;
  }
  RendezvousAnswer a;
  try {
    a.generation = reply.at("generation").get<std::int64_t>();
    a.rank = reply.at("rank").get<int>();
    a.size = reply.at("size").get<int>();
    a.local_rank = reply.at("local_rank").get<int>();
    a.local_size = reply.at("local_size").get<int>();
    a.cross_rank = reply.at("cross_rank").get<int>();
    a.cross_size = reply.at("cross_size").get<int>();
    a.hostname = reply.at("hostname").get<std::string>();
    a.events = reply.at("events").get<std::int64_t>();
  } catch (const nlohmann::json::exception& e) {
    throw Error(ErrorKind::kBackend, "elastic rendezvous of worker " + worker + ": malformed answer from " +
                                         describe() + " (" + e.what() + "): " + reply.dump());
  }
  if (a.size < 1 || a.rank < 0 || a.rank >= a.size || a.generation <= after) {
    throw Error(ErrorKind::kBackend, "elastic rendezvous of worker " + worker + ": inconsistent answer from " +
                                         describe() + ": " + reply.dump());
  }
  return a;
}

bool TcpStore::channel_usable() {
  std::lock_guard lock(mutex_);
  return channel_ != nullptr;
}

std::int64_t TcpStore::add(const std::string& key, std::int64_t delta) {
  auto reply = request({{"op", "add"}, {"key", key}, {"delta", delta}}, kReplySlack);
  return reply.at("value").get<std::int64_t>();
}

}  // namespace hvd::detail
