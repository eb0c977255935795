// A minimal rendezvous-store server for tests (the store half of hvdrun's coordination server, per
// common/protocol.h): FramedConnection as server, set/get (waiting, with timeout)/add. StoreService runs on the
// caller's io_context and hands the elastic rendezvous op to the caller (tests/workers/elastic_stub_driver.cc
// plays the launcher with it); StoreTestServer runs one on its own io thread and answers rendezvous with whatever
// the test set (answer_rendezvous), the request kept for checks.
#pragma once

#include <asio.hpp>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/framed_connection.h"

namespace hvd::test {

// All of its state is touched on the io_context's thread only.
class StoreService {
 public:
  using RendezvousHandler =
      std::function<void(const std::shared_ptr<FramedConnection>& conn, const nlohmann::json& request)>;

  StoreService(asio::io_context& io, std::string secret, RendezvousHandler on_rendezvous)
      : io_(io),
        secret_(std::move(secret)),
        acceptor_(io, {asio::ip::make_address("127.0.0.1"), 0}),
        on_rendezvous_(std::move(on_rendezvous)) {
    do_accept();
  }
  int port() const { return acceptor_.local_endpoint().port(); }

  // Stores value under key and answers every get waiting for that key.
  void set(const std::string& key, const std::string& value) {
    values_[key] = value;
    std::vector<Waiter> ready;
    std::erase_if(waiters_, [&](const Waiter& w) {
      if (w.key != key) return false;
      ready.push_back(w);
      return true;
    });
    for (auto& w : ready) {
      w.timer->cancel();
      if (auto c = w.conn.lock()) c->send({{"ok", true}, {"value", value}});
    }
  }

  // Stops accepting and closes every connection and wait.
  void close() {
    acceptor_.close();
    for (auto& c : connections_) c->close("server stopping");
    for (auto& w : waiters_) w.timer->cancel();
  }

 private:
  struct Waiter {
    std::weak_ptr<FramedConnection> conn;
    std::string key;
    std::shared_ptr<asio::steady_timer> timer;
  };

  void do_accept() {
    acceptor_.async_accept([this](std::error_code ec, asio::ip::tcp::socket socket) {
      if (ec) return;
      auto conn = std::make_shared<FramedConnection>(std::move(socket), secret_, FramedConnection::Role::kServer);
      connections_.push_back(conn);
      std::weak_ptr<FramedConnection> weak = conn;
      auto greeted = std::make_shared<bool>(false);
      conn->start([] {}, [this, weak, greeted](const nlohmann::json& m) { on_message(weak, greeted, m); },
                  [](const std::string&) {});
      do_accept();
    });
  }

  void on_message(const std::weak_ptr<FramedConnection>& weak, const std::shared_ptr<bool>& greeted,
                  const nlohmann::json& m) {
    auto conn = weak.lock();
    if (!conn) return;
    if (!*greeted) {
      *greeted = m.value("type", "") == "hello" && m.value("role", "") == "store";
      if (!*greeted) conn->close("expected a store hello");
      return;
    }
    const std::string op = m.value("op", ""), key = m.value("key", "");
    if (op == "set") {
      conn->send({{"ok", true}});
      set(key, m.at("value").get<std::string>());
    } else if (op == "add") {
      std::int64_t v = (values_.count(key) ? std::stoll(values_[key]) : 0) + m.at("delta").get<std::int64_t>();
      conn->send({{"ok", true}, {"value", v}});
      set(key, std::to_string(v));
    } else if (op == "get") {
      if (values_.count(key)) return conn->send({{"ok", true}, {"value", values_[key]}});
      auto timer = std::make_shared<asio::steady_timer>(io_, std::chrono::milliseconds(m.value("timeout_ms", 0)));
      waiters_.push_back({weak, key, timer});
      timer->async_wait([this, timer, weak, key](std::error_code ec) {
        // A set that came as the timer expired answered it already (cancel() cannot stop a queued handler).
        if (ec || std::erase_if(waiters_, [&](const Waiter& w) { return w.timer == timer; }) == 0) return;
        if (auto c = weak.lock()) c->send({{"ok", false}, {"error", "timed out waiting for key '" + key + "'"}});
      });
    } else if (op == "rendezvous") {
      on_rendezvous_(conn, m);
    } else {
      conn->send({{"ok", false}, {"error", "unknown op '" + op + "'"}});
    }
  }

  asio::io_context& io_;
  std::string secret_;
  asio::ip::tcp::acceptor acceptor_;
  RendezvousHandler on_rendezvous_;
  std::vector<std::shared_ptr<FramedConnection>> connections_;
  std::map<std::string, std::string> values_;
  std::vector<Waiter> waiters_;
};

class StoreTestServer {
 public:
  explicit StoreTestServer(std::string secret)
      : service_(io_, std::move(secret), [this](const auto& conn, const auto& m) { on_rendezvous(conn, m); }) {
    thread_ = std::jthread([this] { io_.run(); });
  }
  ~StoreTestServer() {
    asio::post(io_, [this] { service_.close(); });
    io_.stop();
  }
  int port() const { return service_.port(); }
  // The reply to every later rendezvous request, and the last such request seen.
  void answer_rendezvous(nlohmann::json reply) {
    std::lock_guard lock(rendezvous_mutex_);
    rendezvous_reply_ = std::move(reply);
  }
  nlohmann::json last_rendezvous() {
    std::lock_guard lock(rendezvous_mutex_);
    return rendezvous_request_;
  }

 private:
  void on_rendezvous(const std::shared_ptr<FramedConnection>& conn, const nlohmann::json& m) {
    std::lock_guard lock(rendezvous_mutex_);
    rendezvous_request_ = m;
    conn->send(rendezvous_reply_);
  }

  asio::io_context io_;
  StoreService service_;  // io thread only
  std::mutex rendezvous_mutex_;
  nlohmann::json rendezvous_reply_ = {{"ok", false}, {"error", "no rendezvous answer set"}};  // guarded
  nlohmann::json rendezvous_request_;                                                         // guarded
  std::jthread thread_;
};

}  // namespace hvd::test
