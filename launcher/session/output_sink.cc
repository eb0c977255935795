#include "launcher/session/output_sink.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace hvd::launcher {
namespace {

// O_NONBLOCK belongs to the open file description, which hvdrun shares with its shell and the other programs
// on the same terminal or pipe: setting it on fd 1 would make their writes fail with EAGAIN. So a pipe or a
// terminal is opened afresh through /proc/self/fd (a description of our own); a socket gets MSG_DONTWAIT per
// send; a regular file never blocks for long and is written as it is.
int open_own(int fd, bool& non_blocking, bool& socket) {
  non_blocking = socket = false;
  struct stat st {};
  if (::fstat(fd, &st) != 0) return -1;
  if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)) {
    std::string path = "/proc/self/fd/" + std::to_string(fd);
    int own = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY | O_APPEND);
    if (own >= 0) {
      non_blocking = true;
      return own;
    }
  }
  socket = S_ISSOCK(st.st_mode);
  return ::fcntl(fd, F_DUPFD_CLOEXEC, 3);
}

}  // namespace

OutputSink::OutputSink(asio::io_context& io, int fd, std::string name, WrittenHandler on_written)
    : stream_(io), name_(std::move(name)), on_written_(std::move(on_written)) {
  bool non_blocking = false, socket = false;
  int own = open_own(fd, non_blocking, socket);
  if (own < 0) {
    broken_ = true;  // nothing to write to (fd closed): output is discarded, as a write to it would fail
    return;
  }
  kind_ = non_blocking ? Kind::kNonBlocking : socket ? Kind::kSocket : Kind::kBlocking;
  std::error_code ec;
  stream_.assign(own, ec);  // a regular file cannot be polled; asio accepts it and it is never waited on
  if (ec) {
    ::close(own);
    broken_ = true;
  }
}

void OutputSink::write(std::string bytes, int owner, std::size_t credit) {
  if (broken_) {
    if (on_written_ && credit > 0) on_written_(owner, credit);
    return;
  }
  buffered_ += bytes.size();
  queue_.push_back({std::move(bytes), owner, credit});
  if (!waiting_) pump();
}

void OutputSink::when_drained(std::function<void()> on_drained) {
  if (queue_.empty()) {
    if (on_drained) on_drained();
    return;
  }
  on_drained_ = std::move(on_drained);
}

void OutputSink::pump() {
  const int fd = stream_.native_handle();
  while (!queue_.empty()) {
    const std::string& bytes = queue_.front().bytes;
    const char* data = bytes.data() + offset_;
    const std::size_t left = bytes.size() - offset_;
    ssize_t n = kind_ == Kind::kSocket ? ::send(fd, data, left, MSG_DONTWAIT | MSG_NOSIGNAL) : ::write(fd, data, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return do_wait_writable();
      return break_off(errno);
    }
    offset_ += static_cast<std::size_t>(n);
    buffered_ -= static_cast<std::size_t>(n);
    if (offset_ == bytes.size()) chunk_written();
  }
  if (on_drained_) std::exchange(on_drained_, nullptr)();
}

void OutputSink::chunk_written() {
  Chunk done = std::move(queue_.front());
  queue_.pop_front();
  offset_ = 0;
  if (on_written_ && done.credit > 0) on_written_(done.owner, done.credit);
}

void OutputSink::do_wait_writable() {
  waiting_ = true;
  stream_.async_wait(asio::posix::descriptor_base::wait_write, [this](std::error_code ec) {
    waiting_ = false;
    if (ec == asio::error::operation_aborted) return;
    if (ec) return break_off(ec.value());
    pump();
  });
}

void OutputSink::break_off(int error) {
  broken_ = true;
  std::string message = "hvdrun: cannot write to " + name_ + " (" + std::strerror(error) +
                        "); discarding the workers' output from now on\n";
  (void)!::write(STDERR_FILENO, message.data(), message.size());
  while (!queue_.empty()) {
    offset_ = 0;
    chunk_written();
  }
  buffered_ = 0;
  if (on_drained_) std::exchange(on_drained_, nullptr)();
}

}  // namespace hvd::launcher
