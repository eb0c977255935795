#include "launcher/coordination_server.h"

#include <spdlog/spdlog.h>

#include "common/cloexec.h"

namespace hvd::launcher {

CoordinationServer::CoordinationServer(asio::io_context& io, const std::string& bind_address, std::string secret,
                                       AgentHandler on_agent)
    : io_(io), acceptor_(io), secret_(std::move(secret)), on_agent_(std::move(on_agent)), store_(io) {
  asio::ip::tcp::endpoint endpoint(asio::ip::make_address(bind_address), 0);
  acceptor_.open(endpoint.protocol());
  set_cloexec(acceptor_.native_handle());
  acceptor_.set_option(asio::ip::tcp::acceptor::reuse_address(true));
  acceptor_.bind(endpoint);
  acceptor_.listen(asio::socket_base::max_listen_connections);
  port_ = acceptor_.local_endpoint().port();
  do_accept();
}

void CoordinationServer::close() {
  std::error_code ignored;
  acceptor_.close(ignored);
  auto clients = std::move(clients_);
  for (auto& c : clients) c->close("hvdrun is shutting down");
}

void CoordinationServer::do_accept() {
  acceptor_.async_accept([this](std::error_code ec, asio::ip::tcp::socket socket) {
    if (ec == asio::error::operation_aborted) return;
    if (!ec) {
      auto connection = std::make_shared<FramedConnection>(std::move(socket), secret_, FramedConnection::Role::kServer);
      clients_.insert(connection);
      std::weak_ptr<FramedConnection> weak = connection;
      auto hello_seen = std::make_shared<bool>(false);
      connection->start(
          nullptr,
          [this, weak, hello_seen](const nlohmann::json& message) {
            auto c = weak.lock();
            if (!c) return;
            if (!*hello_seen) {
              *hello_seen = true;
              return on_hello(c, message);
            }
            try {
              store_.handle(c, message);
            } catch (const std::exception& e) {
              spdlog::warn("dropped store client {}: malformed request: {}", c->peer(), e.what());
              c->close("malformed request");
            }
          },
          [this, weak, hello_seen](const std::string& reason) {
            auto c = weak.lock();
            if (!*hello_seen && c) spdlog::warn("rejected a connection from {}: {}", c->peer(), reason);
            if (c) clients_.erase(c);
          });
    } else {
      spdlog::warn("accept on the coordination port failed: {}", ec.message());
    }
    do_accept();
  });
}

void CoordinationServer::on_hello(const std::shared_ptr<FramedConnection>& connection, const nlohmann::json& hello) {
  const std::string role = hello.value("role", "");
  if (role == "agent") {
    clients_.erase(connection);
    on_agent_(connection, hello);
  } else if (role != "store") {
    spdlog::warn("rejected a connection from {}: unknown role '{}'", connection->peer(), role);
    connection->close("unknown role");
  }
}

}  // namespace hvd::launcher
