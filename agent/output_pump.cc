#include "agent/output_pump.h"

#include <sys/ioctl.h>

namespace hvd::agent {
namespace {

void sanitize(std::vector<std::string>& lines) {
  for (auto& line : lines) line = sanitize_utf8(line);
}

}  // namespace

OutputPump::OutputPump(asio::io_context& io, UniqueFd fd) : stream_(io, fd.release()) {}

void OutputPump::start(LinesHandler on_lines, EofHandler on_eof) {
  on_lines_ = std::move(on_lines);
  on_eof_ = std::move(on_eof);
  do_read();
}

void OutputPump::resume() {
  paused_ = false;
  if (!reading_ && !done_ && on_lines_) do_read();
}

bool OutputPump::has_unread_input() {
  int n = 0;
  return !done_ && ::ioctl(stream_.native_handle(), FIONREAD, &n) == 0 && n > 0;
}

void OutputPump::do_read() {
  if (paused_) return;
  reading_ = true;
  stream_.async_read_some(asio::buffer(buffer_), [self = shared_from_this()](std::error_code ec, std::size_t n) {
    self->reading_ = false;
    if (self->done_) return;
    if (n > 0) {
      auto lines = self->reader_.feed(std::string_view(self->buffer_.data(), n));
      if (!lines.empty()) {
        sanitize(lines);
        self->on_lines_(std::move(lines));
      }
    }
    // Any error other than EOF (EIO from a pty-like fd, say) also ends the stream: nothing more can come.
    if (ec) {
      self->finish();
      auto on_eof = std::move(self->on_eof_);
      self->on_lines_ = nullptr;
      if (on_eof) on_eof();
      return;
    }
    self->do_read();
  });
}

void OutputPump::finish() {
  done_ = true;
  if (auto last = reader_.finish(); last && on_lines_) on_lines_({sanitize_utf8(*last)});
  std::error_code ignored;
  stream_.close(ignored);
}

void OutputPump::stop() {
  if (done_) return;
  finish();
  on_lines_ = nullptr;
  on_eof_ = nullptr;
}

}  // namespace hvd::agent
