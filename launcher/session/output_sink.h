// Writes to hvdrun's stdout or stderr without ever blocking the event loop: bytes wait in a queue while the
// reader is slow or paused (a terminal on Ctrl-S, `| less`), and go out as it reads. Each chunk carries an
// owner and a credit; on_written(owner, credit) fires once the chunk is wholly written, so the senders can be
// held back (flow control) and the queue stays bounded by what they were allowed to send. Nothing is dropped
// unless the reader is gone (EPIPE, which needs SIGPIPE ignored, as hvdrun's main does): then the rest is
// discarded (and still credited), and broken() says so.
#pragma once

#include <asio.hpp>
#include <cstddef>
#include <deque>
#include <functional>
#include <string>

namespace hvd::launcher {

class OutputSink {
 public:
  using WrittenHandler = std::function<void(int owner, std::size_t credit)>;

  // fd stays open; the sink writes through a descriptor of its own (see output_sink.cc for why).
  OutputSink(asio::io_context& io, int fd, std::string name, WrittenHandler on_written);
  OutputSink(const OutputSink&) = delete;
  OutputSink& operator=(const OutputSink&) = delete;

  void write(std::string bytes, int owner = -1, std::size_t credit = 0);
  std::size_t buffered() const { return buffered_; }
  bool broken() const { return broken_; }
  // Called once the queue is empty (at once when it already is).
  void when_drained(std::function<void()> on_drained);

 private:
  struct Chunk {
    std::string bytes;
    int owner;
    std::size_t credit;
  };
  enum class Kind { kNonBlocking, kSocket, kBlocking };

  void pump();
  void chunk_written();
  void break_off(int error);
  void do_wait_writable();

  asio::posix::stream_descriptor stream_;
  Kind kind_ = Kind::kBlocking;
  std::string name_;
  WrittenHandler on_written_;
  std::function<void()> on_drained_;
  std::deque<Chunk> queue_;
  std::size_t offset_ = 0;  // into queue_.front()
  std::size_t buffered_ = 0;
  bool waiting_ = false;
  bool broken_ = false;
};

}  // namespace hvd::launcher
