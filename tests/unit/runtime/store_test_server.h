// A rendezvous-store server for tests: hvdrun's own store server (store/store_server.h) behind a loopback acceptor
// that expects a store hello first, as hvdrun's coordination server does. StoreService runs on the caller's
// io_context and hands the elastic rendezvous op to the caller (tests/workers/elastic_stub_driver.cc plays the
// launcher with it); StoreTestServer runs one on its own io thread and answers rendezvous with whatever the test
// set (answer_rendezvous, malformed answers included), the request kept for checks.
#pragma once

#include <asio.hpp>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/framed_connection.h"
#include "common/messages/hello.h"
#include "common/messages/message_type.h"
#include "common/messages/store_answers.h"
#include "store/store_server.h"

namespace hvd::test {

// All of its state is touched on the io_context's thread only.
class StoreService {
 public:
  using RendezvousHandler = detail::StoreServer::RendezvousHandler;

  StoreService(asio::io_context& io, std::string secret, RendezvousHandler on_rendezvous)
      : secret_(std::move(secret)), acceptor_(io, {asio::ip::make_address("127.0.0.1"), 0}), server_(io) {
    server_.set_rendezvous_handler(std::move(on_rendezvous));
    do_accept();
  }
  int port() const { return acceptor_.local_endpoint().port(); }

  // Stores value under key and answers every get waiting for that key.
  void set(const std::string& key, const std::string& value) { server_.set(key, value); }

  // Stops accepting and closes every connection and wait.
  void close() {
    acceptor_.close();
    for (auto& c : connections_) c->close("server stopping");
    server_.close();
  }

 private:
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
    try {
      if (*greeted) return server_.handle(conn, m);
      messages::StoreHello::decode(m);
      *greeted = true;
    } catch (const messages::MessageError& e) {
      conn->close(e.what());
    }
  }

  std::string secret_;
  asio::ip::tcp::acceptor acceptor_;
  detail::StoreServer server_;
  std::vector<std::shared_ptr<FramedConnection>> connections_;
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
  messages::RendezvousRequest last_rendezvous() {
    std::lock_guard lock(rendezvous_mutex_);
    return rendezvous_request_;
  }

 private:
  void on_rendezvous(const std::shared_ptr<FramedConnection>& conn, const messages::RendezvousRequest& request) {
    std::lock_guard lock(rendezvous_mutex_);
    rendezvous_request_ = request;
    conn->send(rendezvous_reply_);
  }

  asio::io_context io_;
  StoreService service_;  // io thread only
  std::mutex rendezvous_mutex_;
  nlohmann::json rendezvous_reply_ =
      messages::StoreRefusal{.error = "no rendezvous answer set"}.encode();  // guarded
  messages::RendezvousRequest rendezvous_request_;                          // guarded
  std::jthread thread_;
};

}  // namespace hvd::test
