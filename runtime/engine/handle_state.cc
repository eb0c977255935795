// Completing a HandleState: the engine's side of a handle (hvd::Handle, in the API, waits on it).
#include "runtime/engine/handle_state.h"

namespace hvd::detail {

namespace {
// Outside the lock: a callback may poll or wait on this very handle.
void run_all(std::vector<std::function<void()>>& callbacks) {
  for (auto& callback : callbacks) callback();
}
}  // namespace

void HandleState::complete_one(std::exception_ptr e) {
  std::vector<std::function<void()>> callbacks;
  {
    std::lock_guard lock(mutex);
    if (remaining == 0) return;
    if (e && !error) error = e;
    --remaining;
    if (remaining > 0) return;
    callbacks.swap(on_done);
  }
  done_cv.notify_all();
  run_all(callbacks);
}

void HandleState::fail_all(std::exception_ptr e) {
  std::vector<std::function<void()>> callbacks;
  {
    std::lock_guard lock(mutex);
    if (remaining == 0) return;
    if (!error) error = e;
    remaining = 0;
    callbacks.swap(on_done);
  }
  done_cv.notify_all();
  run_all(callbacks);
}

void HandleState::add_on_done(std::function<void()> callback) {
  {
    std::lock_guard lock(mutex);
    if (remaining > 0) {
      on_done.push_back(std::move(callback));
      return;
    }
  }
  callback();
}

bool HandleState::done() const {
  std::lock_guard lock(mutex);
  return remaining == 0;
}

}  // namespace hvd::detail
