// The shared state behind hvd::Handle. The engine's background thread completes it; framework threads poll and
// wait. One HandleState may cover several tensors (grouped allreduce): it is done when all of them are, and keeps
// the first error. Completion happens exactly once per tensor; later calls are ignored. A thread that waits on a
// handle first lets its driver (the engine) run pending work on that thread (WaitDriver). Callbacks added with
// add_on_done run once, on the thread that completes the last tensor, after the waiters are woken.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "hvd/types.h"

namespace hvd::detail {

struct HandleState;

// Implemented by the engine: called by Handle::wait() on the waiting thread before it sleeps, so that thread can do
// the engine's work itself instead of handing it to another thread and sleeping. Returns with the handle done, or
// with the work handed to the engine's own thread.
class WaitDriver {
 public:
  virtual void drive(HandleState& waiting) = 0;

 protected:
  ~WaitDriver() = default;
};

struct HandleState {
  explicit HandleState(int tensors = 1) : remaining(tensors) {}

  // Marks one tensor done; `error` (may be null) is kept if it is the first.
  void complete_one(std::exception_ptr error = nullptr);
  void fail_all(std::exception_ptr error);  // marks every remaining tensor done with `error`
  bool done() const;
  // Runs `callback` once the state is done: at once on this thread when it is already, else on the completing one.
  void add_on_done(std::function<void()> callback);

  // Set before the handle is shared; outlives every handle that is not done (the engine fails them all before it
  // goes away).
  WaitDriver* driver = nullptr;

  mutable std::mutex mutex;
  mutable std::condition_variable done_cv;
  int remaining;             // guarded by mutex
  std::exception_ptr error;  // guarded by mutex
  std::vector<std::function<void()>> on_done;  // guarded by mutex; emptied when they run
  // Results, written by the background thread before the last complete_one(), read after wait().
  TensorView output;
  std::vector<std::uint8_t> owned_output;     // backs `output` when the caller gave no allocator (CPU tensors)
  std::shared_ptr<void> owned_device_output;  // the same for GPU tensors; its deleter (the GPU backend's) frees it
  std::vector<std::int64_t> received_splits;
  int last_joined_rank = -1;
};

}  // namespace hvd::detail
