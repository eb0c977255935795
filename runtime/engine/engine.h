// The engine: negotiates, fuses and executes what framework threads enqueue, one cycle at a time.
//
// Who runs a cycle. Cycles are collective (every rank runs the same sequence of them) and one at a time per rank:
// whoever holds cycle_mutex_ runs the next one.
//  - A framework thread that waits on a handle (Handle::wait) runs cycles itself, until its op is done, when no
//    other thread is in one: a cached step (a repeated set of tensors) then costs no thread hand-off at all, the
//    waiting thread takes the step's requests, votes, and runs the fused collective on its own stack. GPU tensors
//    (their streams belong to the background thread) and a joined rank keep the hand-off.
//  - The background thread runs the rest: requests nobody waits on, requests other ranks are late for (back-off:
//    right after a cycle that made progress, else 1/8 of the time since the last progress, at most
//    HOROVOD_CYCLE_TIME in the first second, at most 100 ms after), and, when nothing is in flight, a slow
//    heartbeat (a quarter of the stall check time, 0.1-5 s) that lets the coordinator inspect stalls and hear about
//    shutdowns.
//    When it picks up a burst of requests (a framework thread enqueueing a step's gradients as backward makes
//    them) depends on HVD_ENGINE_OVERLAP (cpu_binding.h). On (a spare CPU for this thread): once enqueues pause
//    for 30 us, at most HOROVOD_CYCLE_TIME after the burst began, a lone request at once; the reductions overlap
//    the rest of backward. Off (no spare CPU): once they pause for HOROVOD_CYCLE_TIME, at most 10 cycle times
//    after; every cycle run during the computation would take a core from it (the MLP of
//    scripts/bench-torch-ddp.sh ran ~70 cycles a step, each a vote all ranks join), so the step's waiter takes the
//    burst whole, in one cycle. GPU tensors always overlap (the GPU reduces them, on this thread's streams).
//    HOROVOD_CYCLE_TIME=0: every request at once.
// A rank that enters a cycle early blocks in the communicator until the others arrive, so ranks that wait for a
// slow peer sleep there.
//
// One cycle (cycle()): take the new requests, sorting cache hits from the rest (take_new_requests); vote
// (cycle_vote.h: one small allreduce); take the cached responses every rank is ready for (take_cached); when some
// rank asked for it, negotiate the rest (negotiate: gather requests, the coordinator answers, broadcast,
// controller.h) and remember the answers in the response cache; fuse everything of this cycle (fusion.h, the one
// place fusion is planned) and execute it in order; pace the next cycle.
//
// Seams for the timeline and autotune: negotiate() brackets a negotiation, execute() one operation with its tensor
// names; set_fusion_threshold() takes effect at the next cycle and must be called identically on every rank at the
// same cycle (every rank plans fusion for itself), e.g. from a value rank 0 broadcast in a ResponseList.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "runtime/comm/communicator.h"
#include "runtime/comm/config.h"
#include "runtime/engine/autotune.h"
#include "runtime/engine/controller.h"
#include "runtime/engine/cycle_vote.h"
#include "runtime/engine/executor.h"
#include "runtime/engine/failure/engine_stop.h"
#include "runtime/engine/gpu/gpu_backend.h"
#include "runtime/engine/handle_state.h"
#include "runtime/engine/response_cache.h"
#include "runtime/engine/stall_inspector.h"
#include "runtime/engine/tensor_queue.h"
#include "runtime/engine/timeline.h"

namespace hvd::detail {

class Engine final : public WaitDriver {
 public:
  using Clock = std::chrono::steady_clock;
  // `job_ranks`: a process set's engine, its ranks' ranks in the job (how its messages name them).
  Engine(const Config& config, Communicator& comm, std::vector<int> job_ranks = {});
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // A step's requests in one call (one lock, one wake-up at most). kCaller: the caller waits on them next (the
  // blocking API), so the background thread is not woken. Never throws for the op's own failures: those land on
  // the entries' handles. The entries' handles are driven by this engine (WaitDriver).
  using Pickup = TensorQueue::Pickup;
  void enqueue(std::vector<TensorEntry> entries, Pickup pickup = Pickup::kBackground);
  // Stops every rank's engine through the next cycle and joins the thread. Pending ops fail. Idempotent.
  void shutdown();
  // Deterministic name for an unnamed op: "allreduce.noname.3".
  std::string next_name(OpType type);
  const Topology& topology() const { return topology_; }
  const EngineOverlapDecision& overlap() const { return overlap_; }  // for init's debug log
  std::size_t in_flight() const { return queue_.in_flight(); }  // ops enqueued here and not finished
  Timeline& timeline() { return timeline_; }  // hvd::start_timeline / stop_timeline at run time
  // Autotune's seams (see above). The cycle time only paces this rank (burst gathering, back-off): any thread.
  void set_fusion_threshold(std::size_t bytes) { fusion_threshold_.store(bytes, std::memory_order_relaxed); }
  void set_cycle_time(std::chrono::microseconds t) { cycle_time_us_.store(t.count(), std::memory_order_relaxed); }

  // WaitDriver: runs one cycle on the calling (waiting) thread when the engine is idle; see above.
  void drive(HandleState& waiting) override;

 private:
  struct Hit {
    const Request* request = nullptr;  // in its queue entry, which stays until the response runs; null: none
    Clock::time_point since;
  };
  // The fused plan of the last cycle that ran cached responses only: a repeated step reuses it instead of copying
  // and fusing its responses again. Valid while the cache and the threshold are unchanged.
  struct CachedPlan {
    std::vector<std::size_t> slots;
    std::uint64_t cache_version = 0;
    std::size_t threshold = 0;
    std::vector<Response> fused;
  };

  void run();
  bool cycle_due(Clock::time_point now) const;
  void run_cycle();  // cycle() with the end of the job (shutdown, failure) handled; caller holds cycle_mutex_
  bool cycle();      // false: the job is shutting down
  bool take_new_requests(Clock::time_point now);
  void requeue_slow_hits(Clock::time_point now);
  void vote(bool had_new, bool want_shutdown, Clock::time_point now);
  void take_cached();
  ResponseList negotiate(bool want_shutdown);
  void remember(const std::vector<Response>& negotiated);
  void renegotiate(std::size_t slot);
  int execute_all(const std::vector<Response>& negotiated);
  void execute(const Response& r);
  void execute_on_gpu(const Response& r);
  void pace(bool progress, Clock::time_point end);
  void tune(bool executed, Clock::time_point end);
  Clock::time_point next_cycle_at(Clock::time_point now) const;
  void adopt_stop(const ResponseList& negotiated);
  void finish(std::exception_ptr failure);
  void note_pending(Clock::time_point now);

  Config config_;
  Communicator& comm_;
  Topology topology_;
  TensorQueue queue_;
  Executor executor_;
  StallInspector stall_;
  std::unique_ptr<Controller> controller_;  // rank 0 only
  std::unique_ptr<GpuBackend> gpu_;         // background thread only; made at the first GPU response
  Timeline timeline_;
  Autotuner autotune_;  // the thread in run_cycle() only; sets fusion_threshold_ and cycle_time_us_ while tuning
  std::chrono::milliseconds heartbeat_;
  // A cached request waiting this long goes back to full negotiation, where the coordinator sees who is missing.
  Clock::duration requeue_after_;
  std::atomic<std::size_t> fusion_threshold_;
  std::atomic<std::int64_t> cycle_time_us_;      // HOROVOD_CYCLE_TIME until set_cycle_time()
  const EngineOverlapDecision overlap_;          // HVD_ENGINE_OVERLAP as decided for this rank (run())
  std::atomic<bool> saw_gpu_{false};             // a GPU tensor was enqueued: cycles stay on the background thread
  std::atomic<bool> finished_{false};            // the queue is closed; no more cycles
  std::atomic<std::thread::id> cycle_thread_{};  // the thread in run_cycle(), if any

  std::mutex names_mutex_;
  std::array<std::uint64_t, 7> name_counters_{};  // guarded by names_mutex_, one per OpType

  // Whoever runs a cycle holds cycle_mutex_; everything below is guarded by it.
  std::mutex cycle_mutex_;
  ResponseCache cache_;
  CycleVote vote_;
  std::vector<const Request*> taken_;     // the cycle's new requests, reused
  std::vector<std::size_t> ready_slots_;  // the cycle's cached responses every rank is ready for
  CachedPlan plan_;
  std::vector<Request> uncached_;  // to send at the next full negotiation
  std::vector<Hit> pending_hits_;  // by cache slot: this rank's request waiting for the others
  std::set<std::size_t> evict_;    // slots this rank wants every rank to drop
  bool joined_ = false;
  bool shutdown_sent_ = false;
  bool requeued_ = false;  // requests went back to uncached_: cycle again at once
  Clock::time_point last_progress_ = Clock::now();
  Clock::time_point last_cycle_end_ = Clock::now();
  Clock::duration delay_{};
  Clock::time_point next_pending_check_{};
  // The report's side (failure/engine_stop.h): why the engine stopped, what its ops fail with, this rank's record.
  // Guarded by cycle_mutex_ but for write_due_record() (enqueue(), once finished).
  EngineStop stop_;

  std::jthread thread_;  // last member: starts after everything it uses exists
};

}  // namespace hvd::detail
