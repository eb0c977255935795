// hvdrun's TCP server for the job's control plane: agents' links and workers' store clients.
// Every connection must pass the secret handshake and open with a hello frame; one that fails authentication
// or sends garbage is dropped and logged, and the job goes on undisturbed. Strangers are held to a deadline and
// a cap (ConnectionGate) and their rejections are logged aggregated (RejectionLog).
#pragma once

#include <asio.hpp>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "common/framed_connection.h"
#include "common/messages/hello.h"
#include "launcher/session/connection_gate.h"
#include "launcher/session/rejection_log.h"
#include "store/store_server.h"

namespace hvd::launcher {

class CoordinationServer {
 public:
  // Called for an authenticated agent hello; the callee takes over the connection's handlers.
  using AgentHandler = std::function<void(std::shared_ptr<FramedConnection>, const messages::AgentHello& hello)>;

  CoordinationServer(asio::io_context& io, const std::string& bind_address, std::string secret, AgentHandler on_agent);
  int port() const { return port_; }
  detail::StoreServer& store() { return store_; }
  void close();

 private:
  void do_accept();
  void accept_later();
  void on_hello(const std::shared_ptr<FramedConnection>& connection, const nlohmann::json& hello);

  asio::io_context& io_;
  asio::ip::tcp::acceptor acceptor_;
  std::string secret_;
  AgentHandler on_agent_;
  ConnectionGate gate_;
  RejectionLog rejections_;
  asio::steady_timer accept_retry_;  // accepting paused: the gate is full or descriptors ran out
  detail::StoreServer store_;
  int port_ = 0;
  bool closing_ = false;  // connections dropped at shutdown are no rejections
  // Connections still in their handshake or serving the store, so close() can drop them.
  std::set<std::shared_ptr<FramedConnection>> clients_;
};

}  // namespace hvd::launcher
