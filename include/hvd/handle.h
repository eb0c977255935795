// The handle of an asynchronous collective: poll it, wait for it; a failure is stored and rethrown by wait().
// Results that are only known once the op ran (allgather's output shape, alltoall's received splits, the last
// rank to join) are read from the handle after wait().
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "hvd/export.h"
#include "hvd/types.h"

namespace hvd {

namespace detail {
struct HandleState;
}

class HVD_API Handle {
 public:
  Handle() = default;
  explicit Handle(std::shared_ptr<detail::HandleState> state) : state_(std::move(state)) {}

  bool valid() const { return state_ != nullptr; }
  bool poll() const;  // true once done (successfully or not); never throws the op's error
  void wait() const;  // blocks until done; rethrows the op's error
  // Waits at most `timeout`; returns false if still running; rethrows the op's error when done.
  bool wait_for(std::chrono::milliseconds timeout) const;
  // Runs `callback` once the op is done, successfully or not (wait() then returns or rethrows at once): on the
  // engine's thread that completed it, or on this thread at once if it is done already. For frameworks whose own
  // engines take a completion callback (TensorFlow's async kernels, MXNet's engine): the callback must not block.
  // Without a thread waiting on it, the op runs on the engine's background thread.
  void on_done(std::function<void()> callback) const;

  // After wait(): the output view (allgather, alltoall, reducescatter), received splits (alltoall), the last
  // rank to join (join).
  const TensorView& output() const;
  const std::vector<std::int64_t>& received_splits() const;
  int last_joined_rank() const;

 private:
  std::shared_ptr<detail::HandleState> state_;
};

}  // namespace hvd
