// Tells MXNet's engine that hvd ops are done. An engine function only starts its hvd op and returns (an engine
// worker must never wait on the network: MXNet's CPU engine may have one); this queue's one thread waits on the
// handles and calls each op's on_complete. A failed op still completes (MXNet must go on); its error is kept
// here, in order, for Python to raise (take_error), because MXNet 1.9's C API has no way to hand it an error.
#pragma once

#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <stop_token>
#include <thread>
#include <vector>

#include "hvd/handle.h"
#include "mxnet_c_api.h"

namespace hvd::mxnet {

class CompletionQueue {
 public:
  CompletionQueue();
  // Stops the thread; ops still running are not completed (MXNet is being torn down with the process).
  ~CompletionQueue() = default;
  CompletionQueue(const CompletionQueue&) = delete;
  CompletionQueue& operator=(const CompletionQueue&) = delete;

  // Calls `done` once `handle` is done, from the queue's thread, then `after` (which releases the op's arrays).
  void add(Handle handle, CallbackOnComplete done, std::function<void()> after);
  // An op that failed before it started: its error is kept and `done` is called now.
  void fail(CallbackOnComplete done, std::exception_ptr error);
  // The oldest failure not yet taken (null when none).
  std::exception_ptr take_error();
  std::size_t pending_errors();

 private:
  struct Entry {
    Handle handle;
    CallbackOnComplete done;
    std::function<void()> after;
  };
  void run(std::stop_token stop);
  void finish_done(std::vector<Entry>& pending);
  void record(std::exception_ptr error);

  std::mutex mutex_;
  std::condition_variable_any added_;
  std::vector<Entry> incoming_;
  std::deque<std::exception_ptr> errors_;
  std::jthread thread_;  // last: it starts once the members it uses exist, and stops before they go
};

}  // namespace hvd::mxnet
