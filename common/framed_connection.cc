#include "common/framed_connection.h"

#include "common/cloexec.h"
#include "common/error.h"
#include "common/handshake.h"

namespace hvd {

FramedConnection::FramedConnection(asio::ip::tcp::socket socket, std::string secret, Role role)
    : socket_(std::move(socket)), secret_(std::move(secret)), role_(role) {
  set_cloexec(socket_.native_handle());
  std::error_code ec;
  auto ep = socket_.remote_endpoint(ec);
  peer_ = ec ? std::string("unknown peer") : ep.address().to_string() + ":" + std::to_string(ep.port());
  socket_.set_option(asio::ip::tcp::no_delay(true), ec);
}

std::string FramedConnection::local_address() const {
  std::error_code ec;
  auto ep = socket_.local_endpoint(ec);
  return ec ? std::string() : ep.address().to_string();
}

std::string FramedConnection::remote_address() const {
  std::error_code ec;
  auto ep = socket_.remote_endpoint(ec);
  return ec ? std::string() : ep.address().to_string();
}

void FramedConnection::start(ReadyHandler on_ready, MessageHandler on_message, CloseHandler on_close) {
  on_ready_ = std::move(on_ready);
  on_message_ = std::move(on_message);
  on_close_ = std::move(on_close);
  if (role_ == Role::kServer) {
    do_server_hello();
  } else {
    do_client_read_hello();
  }
}

void FramedConnection::do_server_hello() {
  auto server = std::make_shared<HandshakeServer>(secret_);
  handshake_state_ = server;
  handshake_out_ = server->hello();
  asio::async_write(socket_, asio::buffer(handshake_out_),
                    [self = shared_from_this()](std::error_code ec, std::size_t) {
                      if (ec) return self->close("handshake write: " + ec.message());
                      self->do_read_client_proof();
                    });
}

void FramedConnection::do_read_client_proof() {
  handshake_in_.assign(kClientProofSize, '\0');
  asio::async_read(socket_, asio::buffer(handshake_in_), [self = shared_from_this()](std::error_code ec, std::size_t) {
    if (ec) return self->close("handshake read: " + ec.message());
    auto server = std::static_pointer_cast<HandshakeServer>(self->handshake_state_);
    try {
      self->handshake_out_ = server->verify_client(self->handshake_in_);
    } catch (const ProtocolError& e) {
      return self->close(e.what());
    }
    auto key = server->session_key();
    asio::async_write(self->socket_, asio::buffer(self->handshake_out_),
                      [self, key](std::error_code ec2, std::size_t) {
                        if (ec2) return self->close("handshake write: " + ec2.message());
                        self->on_authenticated(key);
                      });
  });
}

void FramedConnection::do_client_read_hello() {
  handshake_in_.assign(kServerHelloSize, '\0');
  asio::async_read(socket_, asio::buffer(handshake_in_), [self = shared_from_this()](std::error_code ec, std::size_t) {
    if (ec) return self->close("handshake read: " + ec.message());
    auto client = std::make_shared<HandshakeClient>(self->secret_);
    self->handshake_state_ = client;
    try {
      self->handshake_out_ = client->answer(self->handshake_in_);
    } catch (const ProtocolError& e) {
      return self->close(e.what());
    }
    asio::async_write(self->socket_, asio::buffer(self->handshake_out_), [self](std::error_code ec2, std::size_t) {
      if (ec2) return self->close("handshake write: " + ec2.message());
      self->do_client_read_proof();
    });
  });
}

void FramedConnection::do_client_read_proof() {
  handshake_in_.assign(kServerProofSize, '\0');
  asio::async_read(socket_, asio::buffer(handshake_in_), [self = shared_from_this()](std::error_code ec, std::size_t) {
    if (ec) return self->close("handshake read: " + ec.message() + " (wrong job secret?)");
    auto client = std::static_pointer_cast<HandshakeClient>(self->handshake_state_);
    try {
      client->verify_server(self->handshake_in_);
    } catch (const ProtocolError& e) {
      return self->close(e.what());
    }
    self->on_authenticated(client->session_key());
  });
}

void FramedConnection::on_authenticated(const std::string& session_key) {
  handshake_state_.reset();
  sealer_ = std::make_unique<FrameSealer>(session_key);
  opener_ = std::make_unique<FrameOpener>(session_key);
  if (!open_) return;
  // Frames queued before authentication finished go out now, in order.
  if (!urgent_queue_.empty() || !write_queue_.empty()) do_write();
  if (on_ready_) on_ready_();
  if (open_) do_read_header();
}

void FramedConnection::do_read_header() {
  header_.assign(kFrameHeaderSize, '\0');
  asio::async_read(socket_, asio::buffer(header_), [self = shared_from_this()](std::error_code ec, std::size_t) {
    if (ec) return self->close(ec == asio::error::eof ? "connection closed by peer" : ec.message());
    std::size_t n = 0;
    try {
      n = FrameOpener::body_size(self->header_);
    } catch (const ProtocolError& e) {
      return self->close(e.what());
    }
    self->do_read_body(n);
  });
}

void FramedConnection::do_read_body(std::size_t n) {
  body_.assign(n, '\0');
  asio::async_read(socket_, asio::buffer(body_), [self = shared_from_this()](std::error_code ec, std::size_t) {
    if (ec) return self->close("truncated frame: " + ec.message());
    nlohmann::json message;
    try {
      message = self->opener_->open(self->header_, self->body_);
    } catch (const ProtocolError& e) {
      return self->close(e.what());
    }
    if (self->on_message_) self->on_message_(message);
    if (self->open_) self->do_read_header();
  });
}

void FramedConnection::send(const nlohmann::json& message) { enqueue(write_queue_, message); }

void FramedConnection::send_urgent(const nlohmann::json& message) { enqueue(urgent_queue_, message); }

void FramedConnection::enqueue(std::deque<std::string>& queue, const nlohmann::json& message) {
  if (!open_ || sending_shut_) return;
  // Invalid UTF-8 (a worker printing binary) is replaced, never thrown.
  queue.push_back(message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  queued_bytes_ += queue.back().size();
  if (sealer_ && !writing_) do_write();
}

void FramedConnection::do_write() {
  auto& queue = urgent_queue_.empty() ? write_queue_ : urgent_queue_;
  try {
    writing_frame_ = sealer_->seal_body(queue.front());
  } catch (const Error& e) {
    return close(std::string("send: ") + e.what());
  }
  queued_bytes_ += writing_frame_.size() - queue.front().size();
  queue.pop_front();
  writing_ = true;
  asio::async_write(socket_, asio::buffer(writing_frame_),
                    [self = shared_from_this()](std::error_code ec, std::size_t) {
                      self->writing_ = false;
                      if (ec) return self->close("write: " + ec.message());
                      self->queued_bytes_ -= self->writing_frame_.size();
                      std::string().swap(self->writing_frame_);
                      if (!self->urgent_queue_.empty() || !self->write_queue_.empty()) {
                        self->do_write();
                      } else if (self->close_when_flushed_) {
                        self->close("closed by this side");
                      } else if (self->shutdown_when_flushed_) {
                        self->shutdown_after_flush();
                      }
                    });
}

void FramedConnection::close_after_flush() {
  if ((!writing_ && urgent_queue_.empty() && write_queue_.empty()) || !sealer_) return close("closed by this side");
  close_when_flushed_ = true;
}

void FramedConnection::shutdown_after_flush() {
  if (!open_) return;
  if (!sealer_ || writing_ || !urgent_queue_.empty() || !write_queue_.empty()) {
    shutdown_when_flushed_ = true;
    return;
  }
  sending_shut_ = true;
  std::error_code ignored;
  socket_.shutdown(asio::ip::tcp::socket::shutdown_send, ignored);
}

void FramedConnection::close(const std::string& reason) {
  if (!open_) return;
  open_ = false;
  std::error_code ignored;
  socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
  socket_.close(ignored);
  // Move the handler out so that callbacks releasing their own reference cannot destroy it mid-call.
  auto on_close = std::move(on_close_);
  on_message_ = nullptr;
  on_ready_ = nullptr;
  if (on_close) on_close(reason);
}

}  // namespace hvd
