// One authenticated control-plane connection on an Asio io_context: the handshake (as server or client), then
// a read loop that hands each verified JSON frame to on_message, and an ordered write queue. Urgent frames
// (heartbeats) go out before queued ordinary ones, never behind a backlog of output; a frame is sealed (given
// its sequence number) only when it is written, so the order on the wire is the order of the MACs.
// Any failure (I/O, authentication, malformed frame) ends the connection once, through on_close(reason).
// Lives in a shared_ptr because pending handlers keep it alive; all calls happen on the io_context's thread.
#pragma once

#include <asio.hpp>
#include <deque>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "common/frame.h"

namespace hvd {

class FramedConnection : public std::enable_shared_from_this<FramedConnection> {
 public:
  using MessageHandler = std::function<void(const nlohmann::json&)>;
  using CloseHandler = std::function<void(const std::string& reason)>;
  using ReadyHandler = std::function<void()>;

  enum class Role { kServer, kClient };

  FramedConnection(asio::ip::tcp::socket socket, std::string secret, Role role);

  // Runs the handshake; on success calls on_ready, then delivers frames to on_message until closed.
  void start(ReadyHandler on_ready, MessageHandler on_message, CloseHandler on_close);
  // Replaces the handlers (a server hands a connection to its owner after the hello frame).
  void set_handlers(MessageHandler on_message, CloseHandler on_close) {
    on_message_ = std::move(on_message);
    on_close_ = std::move(on_close);
  }
  void send(const nlohmann::json& message);
  // Sent ahead of every frame queued but not yet being written; for messages whose order does not matter.
  void send_urgent(const nlohmann::json& message);
  // Bytes queued and not yet written (the frame being written included).
  std::size_t queued_bytes() const { return queued_bytes_; }
  // Closes after the queued frames are written (bounded by the peer reading them).
  void close_after_flush();
  // Ends this side's sending once the queued frames are written (a TCP half-close) and reads on until the peer
  // closes: closing outright could reset the connection under frames the peer still has in flight to us.
  void shutdown_after_flush();
  void close(const std::string& reason);
  bool open() const { return open_; }
  std::string peer() const { return peer_; }
  // Addresses of this connection's two ends, without ports ("" when the socket is closed).
  std::string local_address() const;
  std::string remote_address() const;

 private:
  void do_server_hello();
  void do_read_client_proof();
  void do_client_read_hello();
  void do_client_read_proof();
  void on_authenticated(const std::string& session_key);
  void do_read_header();
  void do_read_body(std::size_t n);
  void do_write();
  void enqueue(std::deque<std::string>& queue, const nlohmann::json& message);

  asio::ip::tcp::socket socket_;
  std::string secret_;
  Role role_;
  std::string peer_;
  bool open_ = true;
  bool close_when_flushed_ = false;
  bool shutdown_when_flushed_ = false;
  bool sending_shut_ = false;
  bool writing_ = false;  // one async_write in flight at a time
  std::string handshake_in_, handshake_out_;
  std::string header_, body_;
  std::unique_ptr<FrameSealer> sealer_;
  std::unique_ptr<FrameOpener> opener_;
  std::deque<std::string> urgent_queue_, write_queue_;  // unsealed bodies
  std::string writing_frame_;                           // sealed, being written
  std::size_t queued_bytes_ = 0;
  std::shared_ptr<void> handshake_state_;
  ReadyHandler on_ready_;
  MessageHandler on_message_;
  CloseHandler on_close_;
};

}  // namespace hvd
