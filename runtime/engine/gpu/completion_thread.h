// Completes the handles of GPU work once the device has finished it, so that the engine's background thread
// never waits on a stream. Owner: NcclBackend. One thread; it sleeps in cudaEventSynchronize (blocking-sync
// events) or on its condition variable, never spins. Items complete in the order they were pushed (they come
// from one stream per device, and ranks use one device each). After each item it asks the communicators for an
// asynchronous NCCL error (a cheap query), so a broken NCCL communicator fails the handles instead of passing.
// The destructor finishes every pushed item before returning.
#pragma once

#include <nccl.h>

#include <condition_variable>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "runtime/engine/gpu/cuda_resources.h"
#include "runtime/engine/gpu/gpu_backend.h"

namespace hvd::detail {

class CompletionThread {
 public:
  struct Item {
    int device = 0;
    CudaEvent done;                           // recorded after the response's last operation
    GpuEntries entries;                       // completed when `done` has happened; kept alive until then
    std::vector<ncclComm_t> comms;            // asked for asynchronous errors; they outlive this thread
    std::vector<std::exception_ptr> errors;   // per entry (may be empty): this rank's own failure, e.g. its allocator
    std::vector<std::shared_ptr<void>> keep;  // device memory the work uses (outputs nobody else holds)
    std::string where;                        // "allreduce 'a' (+3 fused) on rank 0 (host h1), device 0"
  };

  CompletionThread();
  ~CompletionThread();
  CompletionThread(const CompletionThread&) = delete;
  CompletionThread& operator=(const CompletionThread&) = delete;

  void push(Item item);
  // Finishes every pushed item, then ends the thread (the destructor does it too). No push() after it.
  void stop();

 private:
  void run(std::stop_token stop);
  static void finish(Item& item);

  std::mutex mutex_;
  std::condition_variable_any ready_;
  std::deque<Item> items_;  // guarded by mutex_
  std::jthread thread_;     // last: starts after the members it uses
};

}  // namespace hvd::detail
