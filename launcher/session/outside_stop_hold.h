// A rank stopped from outside the job (scancel, kill: a stop signal its agent did not send) failed on no account
// of its own, and the same stop is usually on its way to every rank (scancel signals each node's processes in
// turn). hvdrun holds its teardown back for kWindow, so that the stop reaches them all first and the report sees
// each of them stopped from outside, not by hvdrun's teardown. A failure of its own meanwhile, or every rank ended,
// ends the wait at once (release); a signal to hvdrun itself makes it moot (drop).
#pragma once

#include <asio.hpp>
#include <chrono>
#include <functional>
#include <optional>
#include <string>

namespace hvd::launcher {

class OutsideStopHold {
 public:
  static constexpr std::chrono::seconds kWindow{2};
  using Fail = std::function<void(int code, const std::string& message)>;

  OutsideStopHold(asio::io_context& io, Fail fail) : timer_(io), fail_(std::move(fail)) {}

  // Holds the first such stop (its exit code for hvdrun and its line), and calls fail with it after kWindow.
  void hold(int code, std::string message);
  bool holding() const { return held_.has_value(); }
  // Fails now with the stop held, if any.
  void release();
  void drop();

 private:
  struct Held {
    int code;
    std::string message;
  };
  asio::steady_timer timer_;
  Fail fail_;
  std::optional<Held> held_;
};

}  // namespace hvd::launcher
