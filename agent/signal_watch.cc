#include "agent/signal_watch.h"

#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/error.h"

namespace hvd::agent {
namespace {

sigset_t set_of(std::initializer_list<int> signals) {
  sigset_t set;
  ::sigemptyset(&set);
  for (int s : signals) ::sigaddset(&set, s);
  return set;
}

int open_signalfd(const sigset_t& set, sigset_t& previous) {
  ::sigprocmask(SIG_BLOCK, &set, &previous);
  int fd = ::signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
  if (fd < 0) {
    const int e = errno;
    ::sigprocmask(SIG_SETMASK, &previous, nullptr);
    throw Error(ErrorKind::kBackend, std::string("signalfd for the agent's signals: ") + std::strerror(e));
  }
  return fd;
}

}  // namespace

SignalWatch::SignalWatch(asio::io_context& io, std::initializer_list<int> signals) : fd_(io) {
  const sigset_t set = set_of(signals);
  fd_.assign(open_signalfd(set, previous_mask_));
}

SignalWatch::~SignalWatch() {
  std::error_code ignored;
  fd_.close(ignored);
  ::sigprocmask(SIG_SETMASK, &previous_mask_, nullptr);
}

void SignalWatch::async_wait(std::function<void(int)> on_signal) {
  fd_.async_wait(asio::posix::stream_descriptor::wait_read,
                 [this, on_signal = std::move(on_signal)](std::error_code ec) mutable {
                   if (ec) return;
                   signalfd_siginfo info{};
                   if (::read(fd_.native_handle(), &info, sizeof info) != static_cast<ssize_t>(sizeof info)) {
                     return async_wait(std::move(on_signal));  // spurious wake-up: nothing to read yet
                   }
                   on_signal(static_cast<int>(info.ssi_signo));
                 });
}

}  // namespace hvd::agent
