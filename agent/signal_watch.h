// Delivers SIGTERM/SIGINT/SIGHUP (any set of signals) to the agent's io_context through a signalfd: the signals are
// blocked for the process and read from the fd. Not asio::signal_set, whose state is process-wide (a self-pipe and a
// table of handlers): an agent forked from hvdrun without exec inherits hvdrun's copy of it, with hvdrun's fds.
// Restores the signal mask it found when destroyed.
#pragma once

#include <signal.h>

#include <asio.hpp>
#include <functional>
#include <initializer_list>

namespace hvd::agent {

class SignalWatch {
 public:
  SignalWatch(asio::io_context& io, std::initializer_list<int> signals);
  ~SignalWatch();
  SignalWatch(const SignalWatch&) = delete;
  SignalWatch& operator=(const SignalWatch&) = delete;

  // Calls on_signal(signal number) on the io_context's thread for the next signal; call again for the one after.
  void async_wait(std::function<void(int)> on_signal);

 private:
  sigset_t previous_mask_;
  asio::posix::stream_descriptor fd_;
};

}  // namespace hvd::agent
