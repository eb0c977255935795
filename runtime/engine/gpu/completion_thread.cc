#include "runtime/engine/gpu/completion_thread.h"

#include <exception>

#include "hvd/error.h"
#include "runtime/engine/gpu/cuda_error.h"

namespace hvd::detail {

CompletionThread::CompletionThread() : thread_([this](std::stop_token stop) { run(stop); }) {}

CompletionThread::~CompletionThread() { stop(); }

void CompletionThread::stop() {
  thread_.request_stop();
  if (thread_.joinable()) thread_.join();
}

void CompletionThread::push(Item item) {
  {
    std::lock_guard lock(mutex_);
    items_.push_back(std::move(item));
  }
  ready_.notify_one();
}

void CompletionThread::run(std::stop_token stop) {
  while (true) {
    Item item;
    {
      std::unique_lock lock(mutex_);
      // A stop request ends the wait, but the loop drains what is queued first: those handles must complete.
      ready_.wait(lock, stop, [&] { return !items_.empty(); });
      if (items_.empty()) return;
      item = std::move(items_.front());
      items_.pop_front();
    }
    finish(item);
  }
}

void CompletionThread::finish(Item& item) {
  std::exception_ptr error;
  try {
    check_cuda(cudaSetDevice(item.device), "cudaSetDevice", item.where);
    check_cuda(cudaEventSynchronize(item.done.get()), "waiting for the device (cudaEventSynchronize)", item.where);
    for (ncclComm_t comm : item.comms) {
      ncclResult_t async = ncclSuccess;
      check_nccl(ncclCommGetAsyncError(comm, &async), "ncclCommGetAsyncError", comm, item.where);
      if (async != ncclSuccess && async != ncclInProgress) {
        check_nccl(async, "NCCL reported an asynchronous error", comm, item.where);
      }
    }
  } catch (...) {
    error = std::current_exception();
  }
  for (std::size_t i = 0; i < item.entries.size(); ++i) {
    auto& e = item.entries[i];
    if (e) e->handle->complete_one(error ? error : i < item.errors.size() ? item.errors[i] : nullptr);
  }
}

}  // namespace hvd::detail
