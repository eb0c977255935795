// The engine: one background thread that negotiates, fuses and executes what framework threads enqueue.
//
// When a rank runs a cycle (the part that keeps idle ranks blocked instead of spinning):
//  - as soon as it has new requests (a condition variable wakes the thread: a lone request goes at once);
//  - when it has requests in flight that are not done yet, right after the previous cycle if that cycle made
//    progress, else after a back-off of 1/8 of the time since the last progress (at most HOROVOD_CYCLE_TIME in
//    the first second, at most 100 ms after), so a long stall costs ten cycles a second, not a spinning core;
//  - when it has nothing in flight, only on new work, on shutdown(), or on a slow heartbeat (a quarter of the
//    stall check time, 0.1-5 s) that lets the coordinator inspect stalls and hear about shutdowns.
// A cycle is collective: a rank that enters it early simply blocks in the communicator until the others arrive,
// so ranks that wait for a slow peer sleep there. Each cycle is one small allreduce (flags plus the response
// cache's bit vector, response_cache.h); only when some rank has uncached requests, wants to shut down or the
// coordinator wants a stall check does it add a gather of requests and a broadcast of responses (controller.h).
#pragma once

#include <array>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "runtime/comm/communicator.h"
#include "runtime/comm/gpu_backend.h"
#include "runtime/config.h"
#include "runtime/engine/autotune.h"
#include "runtime/engine/controller.h"
#include "runtime/engine/executor.h"
#include "runtime/engine/response_cache.h"
#include "runtime/engine/stall_inspector.h"
#include "runtime/engine/tensor_queue.h"
#include "runtime/engine/timeline.h"

namespace hvd::detail {

class Engine {
 public:
  using Clock = std::chrono::steady_clock;
  Engine(const Config& config, Communicator& comm);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Never throws for the op's own failures: those land on the entries' handles.
  void enqueue(std::vector<TensorEntry> entries) { queue_.enqueue(std::move(entries)); }
  // Stops every rank's engine through the next cycle and joins the thread. Pending ops fail. Idempotent.
  void shutdown();
  // Deterministic name for an unnamed op: "allreduce.noname.3".
  std::string next_name(OpType type);
  const Topology& topology() const { return topology_; }
  Timeline& timeline() { return timeline_; }  // hvd::start_timeline / stop_timeline at run time

 private:
  void run();
  bool cycle();  // false: the job is shutting down
  void execute(const Response& r);
  void execute_on_gpu(const Response& r);
  Clock::time_point next_cycle_at(Clock::time_point now) const;

  Config config_;
  Communicator& comm_;
  Topology topology_;
  TensorQueue queue_;
  Executor executor_;
  StallInspector stall_;
  std::unique_ptr<Controller> controller_;  // rank 0 only
  std::unique_ptr<GpuBackend> gpu_;         // background thread only; made at the first GPU response
  Timeline timeline_;
  Autotuner autotune_;  // background thread only; writes config_.fusion_threshold and cycle_time while tuning
  std::chrono::milliseconds heartbeat_;

  std::mutex names_mutex_;
  std::array<std::uint64_t, 7> name_counters_{};  // guarded by names_mutex_, one per OpType

  // Background thread only.
  ResponseCache cache_;
  struct Hit {
    Request request;
    Clock::time_point since;
  };
  std::vector<Request> uncached_;            // to send at the next full negotiation
  std::map<std::size_t, Hit> pending_hits_;  // cache slot -> this rank's request waiting for the others
  std::set<std::size_t> evict_;              // slots this rank wants every rank to drop
  std::vector<std::uint8_t> bits_;           // the cycle's bit vector, reused
  bool joined_ = false;
  bool shutdown_sent_ = false;
  bool requeued_ = false;  // requests went back to uncached_: cycle again at once
  Clock::time_point last_progress_ = Clock::now();
  Clock::time_point last_cycle_end_ = Clock::now();
  Clock::duration delay_{};
  std::string stop_reason_;

  std::jthread thread_;  // last member: starts after everything it uses exists
};

}  // namespace hvd::detail
