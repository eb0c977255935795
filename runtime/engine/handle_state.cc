// Completing a HandleState: the engine's side of a handle (hvd::Handle, in the API, waits on it).
#include "runtime/engine/handle_state.h"

namespace hvd::detail {

void HandleState::complete_one(std::exception_ptr e) {
  {
    std::lock_guard lock(mutex);
    if (remaining == 0) return;
    if (e && !error) error = e;
    --remaining;
    if (remaining > 0) return;
  }
  done_cv.notify_all();
}

void HandleState::fail_all(std::exception_ptr e) {
  {
    std::lock_guard lock(mutex);
    if (remaining == 0) return;
    if (!error) error = e;
    remaining = 0;
  }
  done_cv.notify_all();
}

bool HandleState::done() const {
  std::lock_guard lock(mutex);
  return remaining == 0;
}

}  // namespace hvd::detail
