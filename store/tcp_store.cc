#include "store/tcp_store.h"

#include <sys/socket.h>

#include "common/address.h"
#include "common/messages/hello.h"
#include "common/messages/store_requests.h"
#include "hvd/error.h"

namespace hvd::detail {
namespace {
// Besides the server-side wait, a reply may take this long to arrive.
constexpr std::chrono::milliseconds kReplySlack{10000};

// The answer `reply` is, or a backend error naming the request and the field that is wrong.
template <class Answer>
Answer decode_answer(const nlohmann::json& reply, const std::string& what, const std::string& store) {
  try {
    return Answer::decode(reply);
  } catch (const messages::MessageError& e) {
    throw Error(ErrorKind::kBackend, what + ": malformed answer from " + store + " (" + e.what() + ")");
  }
}

}  // namespace

TcpStore::TcpStore(const std::string& host, int port, const std::string& secret, int rank,
                   std::chrono::milliseconds connect_timeout)
    : address_(host + ":" + std::to_string(port)) {
  channel_ = std::make_unique<BlockingChannel>(connect_tcp(host, port, connect_timeout), secret, "store at " + address_,
                                               connect_timeout);
  channel_->send(messages::StoreHello{.rank = rank}.encode());
  open_fd_ = channel_->fd();
}

std::unique_ptr<TcpStore> TcpStore::connect(const std::string& address, const std::string& secret, int rank,
                                            std::chrono::milliseconds connect_timeout) {
  const Address parsed = parse_address(address, "store address");
  return std::make_unique<TcpStore>(parsed.host, parsed.port, secret, rank, connect_timeout);
}

nlohmann::json TcpStore::request(const nlohmann::json& message, const std::string& what,
                                 std::chrono::milliseconds reply_timeout) {
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
    throw Error(ErrorKind::kBackend, what + " on " + describe() + " failed: " + broken_);
  }
  try {
    if (messages::is_refusal(reply)) {
      throw Error(ErrorKind::kBackend, describe() + ": " + messages::StoreRefusal::decode(reply).error);
    }
  } catch (const messages::MessageError& e) {
    throw Error(ErrorKind::kBackend, what + " on " + describe() + ": " + e.what());
  }
  return reply;
}

void TcpStore::set(const std::string& key, const std::string& value) {
  request(messages::SetRequest{.key = key, .value = value}.encode(), "set '" + key + "'", kReplySlack);
}

std::string TcpStore::get(const std::string& key, std::chrono::milliseconds timeout) {
  const std::string what = "get '" + key + "'";
  auto reply = request(messages::GetRequest{.key = key, .timeout = timeout}.encode(), what, timeout + kReplySlack);
  return decode_answer<messages::GetAnswer>(reply, what, describe()).value;
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
    reply = request(messages::RendezvousRequest{.worker = worker, .after = after}.encode(),
                    "rendezvous of worker " + worker, timeout + kReplySlack);
  } catch (const Error& e) {
    // The request itself went through and hvdrun said no: it has no place for this worker.
    if (channel_usable()) {
      throw Error(ErrorKind::kMembership, "elastic rendezvous of worker " + worker + " refused by " + e.what());
    }
    throw;
  }
  const auto a = decode_answer<RendezvousAnswer>(reply, "elastic rendezvous of worker " + worker, describe());
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
  const std::string what = "add '" + key + "'";
  auto reply = request(messages::AddRequest{.key = key, .delta = delta}.encode(), what, kReplySlack);
  return decode_answer<messages::AddAnswer>(reply, what, describe()).value;
}

}  // namespace hvd::detail
