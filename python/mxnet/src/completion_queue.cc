// The completion thread: sleeps on a condition variable while nothing is pending, else in the oldest op's
// Handle::wait_for, and completes every finished op, oldest first.
#include "completion_queue.h"

#include <chrono>

namespace hvd::mxnet {
namespace {

// How long the thread waits on the oldest op before it looks at the others: ops may finish out of order (named
// ops, ranks that call them in other orders), and a later op's on_complete must not wait for an earlier op that
// a peer can start only after this rank's later op completed.
constexpr std::chrono::milliseconds kOthersEvery{20};

}  // namespace

CompletionQueue::CompletionQueue() : thread_([this](std::stop_token stop) { run(stop); }) {}

void CompletionQueue::add(Handle handle, CallbackOnComplete done, std::function<void()> after) {
  {
    std::lock_guard lock(mutex_);
    incoming_.push_back(Entry{std::move(handle), done, std::move(after)});
  }
  added_.notify_one();
}

void CompletionQueue::fail(CallbackOnComplete done, std::exception_ptr error) {
  record(std::move(error));
  done();
}

void CompletionQueue::record(std::exception_ptr error) {
  std::lock_guard lock(mutex_);
  errors_.push_back(std::move(error));
}

std::exception_ptr CompletionQueue::take_error() {
  std::lock_guard lock(mutex_);
  if (errors_.empty()) return nullptr;
  auto error = errors_.front();
  errors_.pop_front();
  return error;
}

std::size_t CompletionQueue::pending_errors() {
  std::lock_guard lock(mutex_);
  return errors_.size();
}

void CompletionQueue::run(std::stop_token stop) {
  std::vector<Entry> pending;
  while (!stop.stop_requested()) {
    {
      std::unique_lock lock(mutex_);
      if (!added_.wait(lock, stop, [&] { return !incoming_.empty() || !pending.empty(); })) return;
      for (auto& e : incoming_) pending.push_back(std::move(e));
      incoming_.clear();
    }
    try {
      pending.front().handle.wait_for(kOthersEvery);
    } catch (...) {
      // The error is read again from the handle in finish_done, with the others.
    }
    finish_done(pending);
  }
}

void CompletionQueue::finish_done(std::vector<Entry>& pending) {
  std::vector<Entry> still_running;
  for (auto& e : pending) {
    if (!e.handle.poll()) {
      still_running.push_back(std::move(e));
      continue;
    }
    try {
      e.handle.wait();  // done: returns at once, or rethrows the op's error
    } catch (...) {
      record(std::current_exception());
    }
    e.done();  // after the error is recorded: Python checks for it once MXNet says the output is ready
    e.after();
  }
  pending = std::move(still_running);
}

}  // namespace hvd::mxnet
