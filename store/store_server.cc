#include "store/store_server.h"

#include <spdlog/spdlog.h>

#include "common/messages/message_type.h"
#include "common/messages/store_answers.h"

namespace hvd::detail {

void StoreServer::handle(const std::shared_ptr<FramedConnection>& client, const nlohmann::json& request) {
  using messages::MessageType;
  const auto type = messages::message_type_of(request);
  if (type == MessageType::kSetRequest) {
    const auto set_request = messages::SetRequest::decode(request);
    set(set_request.key, set_request.value);
    return client->send(messages::SetAnswer{}.encode());
  }
  if (type == MessageType::kGetRequest) return get(client, messages::GetRequest::decode(request));
  if (type == MessageType::kAddRequest) return add(client, messages::AddRequest::decode(request));
  if (type == MessageType::kRendezvousRequest) {
    const auto rendezvous = messages::RendezvousRequest::decode(request);
    if (!rendezvous_) {
      return client->send(
          messages::StoreRefusal{.error = "rendezvous is for elastic jobs; this job is not elastic"}.encode());
    }
    return rendezvous_(client, rendezvous);
  }
  const std::string claimed = messages::claimed_type(request);
  spdlog::warn("store: unknown request ({}) from {}", claimed, client->peer());
  client->send(messages::StoreRefusal{.error = "unknown store request (" + claimed + ")"}.encode());
}

void StoreServer::get(const std::shared_ptr<FramedConnection>& client, const messages::GetRequest& request) {
  const std::string& key = request.key;
  if (auto it = values_.find(key); it != values_.end()) return reply_value(client, it->second);
  auto timer = std::make_shared<asio::steady_timer>(io_);
  timer->expires_after(request.timeout);
  std::weak_ptr<FramedConnection> weak = client;
  timer->async_wait([this, weak, key, timer](std::error_code ec) {
    // A timer that expired as the key arrived has its handler queued already, which cancel() cannot stop: the
    // key's arrival took the waiter off the list and answered it, and a request gets one reply.
    if (ec || !drop_waiter(key, timer)) return;
    if (auto c = weak.lock()) c->send(messages::StoreRefusal{.error = "timed out waiting for key '" + key + "'"}.encode());
  });
  waiters_[key].push_back({client, timer});
}

void StoreServer::add(const std::shared_ptr<FramedConnection>& client, const messages::AddRequest& request) {
  std::int64_t value = 0;
  if (auto it = values_.find(request.key); it != values_.end()) value = std::stoll(it->second);
  value += request.delta;
  values_[request.key] = std::to_string(value);
  client->send(messages::AddAnswer{.value = value}.encode());
  wake_waiters(request.key);
}

void StoreServer::set(const std::string& key, const std::string& value) {
  values_[key] = value;
  wake_waiters(key);
}

void StoreServer::close() {
  auto waiters = std::move(waiters_);
  waiters_.clear();
  for (auto& [key, list] : waiters) {
    for (auto& w : list) w.timer->cancel();
  }
}

void StoreServer::reply_value(const std::shared_ptr<FramedConnection>& client, const std::string& value) {
  client->send(messages::GetAnswer{.value = value}.encode());
}

bool StoreServer::drop_waiter(const std::string& key, const std::shared_ptr<asio::steady_timer>& timer) {
  auto it = waiters_.find(key);
  if (it == waiters_.end()) return false;
  const auto dropped = std::erase_if(it->second, [&](const Waiter& w) { return w.timer == timer; });
  if (it->second.empty()) waiters_.erase(it);
  return dropped > 0;
}

void StoreServer::wake_waiters(const std::string& key) {
  auto it = waiters_.find(key);
  if (it == waiters_.end()) return;
  auto list = std::move(it->second);
  waiters_.erase(it);
  for (auto& w : list) {
    w.timer->cancel();
    if (auto c = w.client.lock()) reply_value(c, values_[key]);
  }
}

}  // namespace hvd::detail
