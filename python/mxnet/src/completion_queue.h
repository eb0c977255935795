// Tells MXNet's engine that hvd ops are done. An engine function only starts its hvd op and returns (an engine
// worker must never wait on the network: MXNet's CPU engine may have one); the op's handle calls its on_complete
// when libhvd completes it (Handle::on_done, on libhvd's engine thread), whatever the order ops finish in. A failed
// op still completes (MXNet must go on); its error is kept here, in order, for Python to raise (take_error),
// because MXNet 1.9's C API has no way to hand it an error.
#pragma once

#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>

#include "hvd/handle.h"
#include "mxnet_c_api.h"

namespace hvd::mxnet {

class CompletionQueue {
 public:
  CompletionQueue() : errors_(std::make_shared<Errors>()) {}
  CompletionQueue(const CompletionQueue&) = delete;
  CompletionQueue& operator=(const CompletionQueue&) = delete;

  // Calls `done` once `handle` is done, then `after` (which releases the op's arrays).
  void add(const Handle& handle, CallbackOnComplete done, std::function<void()> after);
  // An op that failed before it started: its error is kept and `done` is called now.
  void fail(CallbackOnComplete done, std::exception_ptr error);
  // The oldest failure not yet taken (null when none).
  std::exception_ptr take_error();
  std::size_t pending_errors();

 private:
  struct Errors {
    std::mutex mutex;
    std::deque<std::exception_ptr> queue;  // guarded by mutex
    void record(std::exception_ptr error);
  };
  // Shared with the callbacks: an op completing during teardown still has somewhere to put its error.
  std::shared_ptr<Errors> errors_;
};

}  // namespace hvd::mxnet
