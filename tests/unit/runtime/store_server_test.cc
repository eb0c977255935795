#include "store/store_server.h"

#include <doctest/doctest.h>

#include <chrono>
#include <thread>

#include "common/blocking_channel.h"
#include "common/messages/message_type.h"

using namespace std::chrono_literals;

namespace {

const std::string kSecret = "store-server-test-secret";

// hvdrun's store on its own io thread, serving one client as the session does (the hello frame aside).
// `after_get` runs on the io thread right after each get is handled.
class Store {
 public:
  explicit Store(std::function<void(asio::io_context&, hvd::detail::StoreServer&)> after_get)
      : acceptor_(io_, {asio::ip::make_address("127.0.0.1"), 0}), server_(io_), after_get_(std::move(after_get)) {
    acceptor_.async_accept([this](std::error_code ec, asio::ip::tcp::socket socket) {
      if (ec) return;
      conn_ = std::make_shared<hvd::FramedConnection>(std::move(socket), kSecret, hvd::FramedConnection::Role::kServer);
      conn_->start([] {}, [this](const nlohmann::json& m) { on_message(m); }, [](const std::string&) {});
    });
    thread_ = std::jthread([this] { io_.run(); });
  }
  ~Store() {
    asio::post(io_, [this] {
      if (conn_) conn_->close("test over");
      acceptor_.close();
    });
    thread_.join();
  }
  int port() const { return acceptor_.local_endpoint().port(); }

 private:
  void on_message(const nlohmann::json& m) {
    const auto type = hvd::messages::message_type_of(m);
    if (type == hvd::messages::MessageType::kStoreHello) return;
    server_.handle(conn_, m);
    if (type == hvd::messages::MessageType::kGetRequest) after_get_(io_, server_);
  }

  asio::io_context io_;
  asio::ip::tcp::acceptor acceptor_;
  hvd::detail::StoreServer server_;
  std::function<void(asio::io_context&, hvd::detail::StoreServer&)> after_get_;
  std::shared_ptr<hvd::FramedConnection> conn_;
  std::jthread thread_;
};

}  // namespace

TEST_CASE("a get whose timeout expires as its key arrives gets one reply: the value") {
  // The key is set 1 ms after the get, its timeout is 10 ms, and the io thread is busy for 30 ms: both timers have
  // expired when it next looks, so the set's handler runs with the get's timeout handler already queued (what a
  // busy hvdrun met now and then: an elastic worker read the stale timeout as its rendezvous answer).
  std::shared_ptr<asio::steady_timer> set_later;
  Store store([&](asio::io_context& io, hvd::detail::StoreServer& server) {
    set_later = std::make_shared<asio::steady_timer>(io, 1ms);
    set_later->async_wait([&server](std::error_code ec) {
      if (!ec) server.set("elastic/event/1", "reset");
    });
    std::this_thread::sleep_for(30ms);
  });
  hvd::BlockingChannel client(hvd::connect_tcp("127.0.0.1", store.port(), 10s), kSecret, "store", 10s);
  client.send({{"type", "hello"}, {"role", "store"}, {"rank", -1}});
  client.send({{"op", "get"}, {"key", "elastic/event/1"}, {"timeout_ms", 10}});
  CHECK(client.recv(10s) == nlohmann::json{{"ok", true}, {"value", "reset"}});
  client.send({{"op", "add"}, {"key", "count"}, {"delta", 1}});
  CHECK(client.recv(10s) == nlohmann::json{{"ok", true}, {"value", 1}});
}

TEST_CASE("a get whose key never comes times out, once") {
  Store store([](asio::io_context&, hvd::detail::StoreServer&) {});
  hvd::BlockingChannel client(hvd::connect_tcp("127.0.0.1", store.port(), 10s), kSecret, "store", 10s);
  client.send({{"type", "hello"}, {"role", "store"}, {"rank", -1}});
  client.send({{"op", "get"}, {"key", "never"}, {"timeout_ms", 10}});
  CHECK(client.recv(10s) == nlohmann::json{{"ok", false}, {"error", "timed out waiting for key 'never'"}});
  client.send({{"op", "set"}, {"key", "never"}, {"value", "now"}});
  CHECK(client.recv(10s) == nlohmann::json{{"ok", true}});
}
