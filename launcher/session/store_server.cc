#include "launcher/session/store_server.h"

#include <spdlog/spdlog.h>

namespace hvd::launcher {

void StoreServer::handle(const std::shared_ptr<FramedConnection>& client, const nlohmann::json& request) {
  const std::string op = request.value("op", "");
  const std::string key = request.value("key", "");
  if (op == "set") {
    set(key, request.value("value", ""));
    client->send({{"ok", true}});
  } else if (op == "get") {
    if (auto it = values_.find(key); it != values_.end()) return reply_value(client, it->second);
    auto timer = std::make_shared<asio::steady_timer>(io_);
    timer->expires_after(std::chrono::milliseconds(request.value("timeout_ms", 30000)));
    std::weak_ptr<FramedConnection> weak = client;
    timer->async_wait([this, weak, key, timer](std::error_code ec) {
      // A timer that expired as the key arrived has its handler queued already, which cancel() cannot stop: the
      // key's arrival took the waiter off the list and answered it, and a request gets one reply.
      if (ec || !drop_waiter(key, timer)) return;
      if (auto c = weak.lock()) c->send({{"ok", false}, {"error", "timed out waiting for key '" + key + "'"}});
    });
    waiters_[key].push_back({client, timer});
  } else if (op == "add") {
    std::int64_t value = 0;
    if (auto it = values_.find(key); it != values_.end()) value = std::stoll(it->second);
    value += request.value("delta", std::int64_t{0});
    values_[key] = std::to_string(value);
    client->send({{"ok", true}, {"value", value}});
    wake_waiters(key);
  } else if (op == "rendezvous") {
    if (!rendezvous_) {
      return client->send({{"ok", false}, {"error", "rendezvous is for elastic jobs; this job is not elastic"}});
    }
    rendezvous_(client, request);
  } else {
    spdlog::warn("store: unknown request '{}' from {}", op, client->peer());
    client->send({{"ok", false}, {"error", "unknown store op '" + op + "'"}});
  }
}

void StoreServer::set(const std::string& key, const std::string& value) {
  values_[key] = value;
  wake_waiters(key);
}

void StoreServer::reply_value(const std::shared_ptr<FramedConnection>& client, const std::string& value) {
  client->send({{"ok", true}, {"value", value}});
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

}  // namespace hvd::launcher
