#include "launcher/session/coordination_server.h"

#include <spdlog/spdlog.h>

#include "common/cloexec.h"
#include "common/messages/message_type.h"

namespace hvd::launcher {

CoordinationServer::CoordinationServer(asio::io_context& io, const std::string& bind_address, std::string secret,
                                       AgentHandler on_agent)
    : io_(io),
      acceptor_(io),
      secret_(std::move(secret)),
      on_agent_(std::move(on_agent)),
      gate_(io),
      rejections_(io),
      accept_retry_(io),
      store_(io) {
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
  closing_ = true;
  std::error_code ignored;
  acceptor_.close(ignored);
  accept_retry_.cancel();
  gate_.close();
  rejections_.flush();
  auto clients = std::move(clients_);
  for (auto& c : clients) c->close("hvdrun is shutting down");
}

void CoordinationServer::accept_later() {
  accept_retry_.expires_after(std::chrono::milliseconds(100));
  accept_retry_.async_wait([this](std::error_code ec) {
    if (!ec) do_accept();
  });
}

void CoordinationServer::do_accept() {
  if (!acceptor_.is_open()) return;
  if (!gate_.has_room()) return accept_later();
  acceptor_.async_accept([this](std::error_code ec, asio::ip::tcp::socket socket) {
    if (ec == asio::error::operation_aborted) return;
    if (ec == asio::error::no_descriptors || ec == asio::error::no_buffer_space) {
      // Out of descriptors: retrying at once would spin; the gate frees some as deadlines pass.
      rejections_.reject("(accept)", ec.message());
      return accept_later();
    }
    if (!ec) {
      auto connection = std::make_shared<FramedConnection>(std::move(socket), secret_, FramedConnection::Role::kServer);
      clients_.insert(connection);
      gate_.admit(connection);
      std::weak_ptr<FramedConnection> weak = connection;
      auto hello_seen = std::make_shared<bool>(false);
      connection->start(
          nullptr,
          [this, weak, hello_seen](const nlohmann::json& message) {
            auto c = weak.lock();
            if (!c) return;
            if (!*hello_seen) {
              *hello_seen = true;
              gate_.leave(c.get());
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
            if (!c) return;
            if (!*hello_seen) {
              gate_.leave(c.get());
              if (!closing_) rejections_.reject(c->peer(), reason);
            }
            clients_.erase(c);
          });
    } else {
      spdlog::warn("accept on the coordination port failed: {}", ec.message());
    }
    do_accept();
  });
}

void CoordinationServer::on_hello(const std::shared_ptr<FramedConnection>& connection, const nlohmann::json& frame) {
  const auto type = messages::message_type_of(frame);
  try {
    if (type == messages::MessageType::kAgentHello) {
      const auto hello = messages::AgentHello::decode(frame);
      clients_.erase(connection);
      return on_agent_(connection, hello);
    }
    if (type == messages::MessageType::kStoreHello) {
      messages::StoreHello::decode(frame);
      return;
    }
  } catch (const messages::MessageError& e) {
    rejections_.reject(connection->peer(), e.what());
    return connection->close("malformed hello");
  }
  rejections_.reject(connection->peer(), "the first frame is not an agent's or a store client's hello (its type: " +
                                             messages::claimed_type(frame) + ")");
  connection->close("no hello");
}

}  // namespace hvd::launcher
