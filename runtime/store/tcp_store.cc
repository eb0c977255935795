#include "runtime/store/tcp_store.h"

#include "hvd/error.h"

namespace hvd::detail {
namespace {
// Besides the server-side wait, a reply may take this long to arrive.
constexpr std::chrono::milliseconds kReplySlack{10000};
}  // namespace

TcpStore::TcpStore(const std::string& host, int port, const std::string& secret, int rank,
                   std::chrono::milliseconds connect_timeout)
    : address_(host + ":" + std::to_string(port)) {
  channel_ = std::make_unique<BlockingChannel>(connect_tcp(host, port, connect_timeout), secret,
                                               "store at " + address_, connect_timeout);
  channel_->send({{"type", "hello"}, {"role", "store"}, {"rank", rank}});
}

std::unique_ptr<TcpStore> TcpStore::connect(const std::string& address, const std::string& secret, int rank,
                                            std::chrono::milliseconds connect_timeout) {
  auto colon = address.rfind(':');
  if (colon == std::string::npos || colon + 1 == address.size()) {
    throw Error("bad store address '" + address + "': expected host:port");
  }
  std::string host = address.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  int port = 0;
  try {
    port = std::stoi(address.substr(colon + 1));
  } catch (const std::exception&) {
    throw Error("bad store address '" + address + "': the port is not a number");
  }
  return std::make_unique<TcpStore>(host, port, secret, rank, connect_timeout);
}

nlohmann::json TcpStore::request(const nlohmann::json& message, std::chrono::milliseconds reply_timeout) {
  std::lock_guard lock(mutex_);
  if (!channel_) throw Error(describe() + " is unusable after an earlier failure: " + broken_);
  nlohmann::json reply;
  try {
    channel_->send(message);
    reply = channel_->recv(reply_timeout);
  } catch (const std::exception& e) {
    broken_ = e.what();
    channel_.reset();
    throw Error(std::string(message.value("op", "request")) + " '" + message.value("key", "") + "' on " +
                describe() + " failed: " + broken_);
  }
  if (!reply.is_object() || !reply.value("ok", false)) {
    std::string why = reply.is_object() ? reply.value("error", reply.dump()) : reply.dump();
    throw Error(describe() + ": " + why);
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

std::int64_t TcpStore::add(const std::string& key, std::int64_t delta) {
  auto reply = request({{"op", "add"}, {"key", key}, {"delta", delta}}, kReplySlack);
  return reply.at("value").get<std::int64_t>();
}

}  // namespace hvd::detail
