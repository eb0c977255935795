#include "launcher/session/outside_stop_hold.h"

namespace hvd::launcher {

void OutsideStopHold::hold(int code, std::string message) {
  if (held_) return;
  held_ = Held{code, std::move(message)};
  timer_.expires_after(kWindow);
  timer_.async_wait([this](std::error_code ec) {
    if (!ec) release();
  });
}

void OutsideStopHold::release() {
  if (!held_) return;
  Held held = std::move(*held_);
  held_.reset();
  timer_.cancel();
  fail_(held.code, held.message);
}

void OutsideStopHold::drop() {
  held_.reset();
  timer_.cancel();
}

}  // namespace hvd::launcher
