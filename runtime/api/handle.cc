// hvd::Handle over detail::HandleState (whose completion is the engine's: engine/handle_state.cc).
#include "hvd/handle.h"

#include "hvd/error.h"
#include "runtime/engine/handle_state.h"

namespace hvd {

namespace {
const detail::HandleState& checked(const std::shared_ptr<detail::HandleState>& state) {
  if (!state) throw Error(ErrorKind::kUsage, "hvd::Handle: empty handle (default-constructed or moved from)");
  return *state;
}
}  // namespace

bool Handle::poll() const {
  const auto& s = checked(state_);
  std::lock_guard lock(s.mutex);
  return s.remaining == 0;
}

void Handle::wait() const {
  const auto& s = checked(state_);
  if (s.driver && !s.done()) s.driver->drive(*state_);
  std::unique_lock lock(s.mutex);
  s.done_cv.wait(lock, [&] { return s.remaining == 0; });
  if (s.error) std::rethrow_exception(s.error);
}

bool Handle::wait_for(std::chrono::milliseconds timeout) const {
  const auto& s = checked(state_);
  std::unique_lock lock(s.mutex);
  if (!s.done_cv.wait_for(lock, timeout, [&] { return s.remaining == 0; })) {
    return false;
  }
  if (s.error) std::rethrow_exception(s.error);
  return true;
}

void Handle::on_done(std::function<void()> callback) const {
  if (!callback) throw Error(ErrorKind::kUsage, "hvd::Handle::on_done: empty callback");
  checked(state_);
  state_->add_on_done(std::move(callback));
}

const TensorView& Handle::output() const { return checked(state_).output; }
const std::vector<std::int64_t>& Handle::received_splits() const { return checked(state_).received_splits; }
int Handle::last_joined_rank() const { return checked(state_).last_joined_rank; }

}  // namespace hvd
