// Completing MXNet engine ops from libhvd's handles, and the errors they leave for Python.
#include "completion_queue.h"

#include <utility>

namespace hvd::mxnet {

void CompletionQueue::Errors::record(std::exception_ptr error) {
  std::lock_guard lock(mutex);
  queue.push_back(std::move(error));
}

void CompletionQueue::add(const Handle& handle, CallbackOnComplete done, std::function<void()> after) {
  // The callback holds a copy of the handle; libhvd drops its callbacks once they ran, which ends that cycle.
  handle.on_done([handle, done, after = std::move(after), errors = errors_] {
    try {
      handle.wait();  // done: returns at once, or rethrows the op's error
    } catch (...) {
      errors->record(std::current_exception());
    }
    done();  // after the error is recorded: Python checks for it once MXNet says the output is ready
    after();
  });
}

void CompletionQueue::fail(CallbackOnComplete done, std::exception_ptr error) {
  errors_->record(std::move(error));
  done();
}

std::exception_ptr CompletionQueue::take_error() {
  std::lock_guard lock(errors_->mutex);
  if (errors_->queue.empty()) return nullptr;
  auto error = errors_->queue.front();
  errors_->queue.pop_front();
  return error;
}

std::size_t CompletionQueue::pending_errors() {
  std::lock_guard lock(errors_->mutex);
  return errors_->queue.size();
}

}  // namespace hvd::mxnet
