#include "launcher/session/output_sink.h"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <map>
#include <string>

#include "common/unique_fd.h"

using hvd::UniqueFd;
using hvd::launcher::OutputSink;

namespace {

struct Pipe {
  Pipe() {
    int fds[2];
    REQUIRE(::pipe2(fds, O_CLOEXEC) == 0);
    read_end.reset(fds[0]);
    write_end.reset(fds[1]);
  }
  UniqueFd read_end, write_end;
};

std::string chunk(int i) { return std::string(10000, static_cast<char>('a' + i % 26)); }

}  // namespace

TEST_CASE("OutputSink never blocks on a full pipe, credits each chunk once written, and loses nothing") {
  asio::io_context io;
  Pipe pipe;
  std::map<int, std::size_t> credited;
  OutputSink sink(io, pipe.write_end.get(), "test pipe",
                  [&](int owner, std::size_t credit) { credited[owner] += credit; });
  constexpr int kChunks = 100;  // 1 MB: far past the pipe's 64 KiB
  std::string expected;
  for (int i = 0; i < kChunks; ++i) {
    sink.write(chunk(i), i % 2, 7);
    expected += chunk(i);
  }
  // Nothing reads yet: the writes returned, part of it waits, and only the written chunks were credited.
  CHECK(sink.buffered() > 0);
  CHECK(credited[0] + credited[1] < 7u * kChunks);
  CHECK_FALSE(sink.broken());

  bool drained = false;
  sink.when_drained([&] { drained = true; });
  std::string got;
  char buf[65536];
  ::fcntl(pipe.read_end.get(), F_SETFL, O_NONBLOCK);
  while (got.size() < expected.size()) {
    ssize_t n = ::read(pipe.read_end.get(), buf, sizeof buf);
    if (n > 0) got.append(buf, static_cast<std::size_t>(n));
    io.poll();
    io.restart();
  }
  CHECK(got == expected);
  CHECK(drained);
  CHECK(sink.buffered() == 0);
  CHECK(credited[0] == 7u * kChunks / 2);
  CHECK(credited[1] == 7u * kChunks / 2);
}

TEST_CASE("OutputSink whose reader is gone discards the rest and still credits it") {
  ::signal(SIGPIPE, SIG_IGN);  // as hvdrun's main does: EPIPE must come back as an error
  asio::io_context io;
  Pipe pipe;
  std::size_t credited = 0;
  OutputSink sink(io, pipe.write_end.get(), "test pipe", [&](int, std::size_t credit) { credited += credit; });
  pipe.read_end.reset();
  sink.write(chunk(0), 0, 5);
  sink.write(chunk(1), 0, 5);
  CHECK(sink.broken());
  CHECK(sink.buffered() == 0);
  CHECK(credited == 10);
}
