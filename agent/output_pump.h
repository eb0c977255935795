// Reads one worker stream (stdout or stderr) on the io_context and hands over whole, UTF-8-clean lines.
// Contract: all complete lines from one read arrive in one on_lines call; at EOF the unterminated remainder
// comes as a last on_lines, then on_eof, once. stop() delivers the remainder too, and nothing after it.
// pause() stops reading after the read in flight (flow control: the pipe fills and the worker blocks on write);
// resume() reads on. Held in a shared_ptr because pending reads keep it alive.
#pragma once

#include <array>
#include <asio.hpp>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "agent/line_reader.h"
#include "common/unique_fd.h"

namespace hvd::agent {

class OutputPump : public std::enable_shared_from_this<OutputPump> {
 public:
  using LinesHandler = std::function<void(std::vector<std::string> lines)>;
  using EofHandler = std::function<void()>;

  OutputPump(asio::io_context& io, UniqueFd fd);
  void start(LinesHandler on_lines, EofHandler on_eof);
  // Gives up on the stream (a grandchild still holds it): flushes the partial line and closes.
  void stop();
  bool done() const { return done_; }
  void pause() { paused_ = true; }
  void resume();
  // Bytes wait in the pipe, not yet read (the worker's output is not over even if the worker is).
  bool has_unread_input();

 private:
  void do_read();
  void finish();

  asio::posix::stream_descriptor stream_;
  LineReader reader_;
  std::array<char, 64 * 1024> buffer_;
  bool done_ = false;
  bool paused_ = false;
  bool reading_ = false;  // an async read is in flight
  LinesHandler on_lines_;
  EofHandler on_eof_;
};

}  // namespace hvd::agent
