#include "runtime/engine/engine.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "hvd/error.h"
#include "runtime/comm/shm/cpu_binding.h"
#include "runtime/engine/fusion.h"
#include "runtime/engine/wire.h"

namespace hvd::detail {
namespace {

constexpr auto kMinBackoff = std::chrono::microseconds(20);
constexpr auto kMaxBackoff = std::chrono::milliseconds(100);
constexpr auto kBurstGap = std::chrono::microseconds(30);  // enqueues closer than this belong to one burst
// Without a spare CPU, a burst is taken once it pauses for HOROVOD_CYCLE_TIME, at most this many cycle times after
// it began (a thread that waits on it takes it at once).
constexpr int kWholeBurstCycles = 10;
// The coordinator records the op its ranks wait in once it has waited this long (a hung job's report names it),
// looking at most this often.
constexpr auto kPendingAfter = std::chrono::seconds(1);

std::chrono::milliseconds heartbeat_for(std::chrono::seconds stall_check) {
  if (stall_check.count() == 0) return std::chrono::seconds(5);
  auto quarter = std::chrono::duration_cast<std::chrono::milliseconds>(stall_check) / 4;
  return std::clamp<std::chrono::milliseconds>(quarter, std::chrono::milliseconds(100), std::chrono::seconds(5));
}

// Under hvdrun (an error file to report to) soon enough for a hung job's report to name the missing ranks.
std::chrono::steady_clock::duration requeue_after_for(const Config& config) {
  std::chrono::steady_clock::duration half = config.stall_check_time / 2;
  if (!config.error_file.empty()) half = std::min<std::chrono::steady_clock::duration>(half, std::chrono::seconds(2));
  return half;
}

// Communicator failures are fatal for the engine; the executor reports them the same way.
template <typename F>
auto data_plane(F&& f) {
  try {
    return f();
  } catch (const DataPlaneBroken&) {
    throw;
  } catch (...) {
    throw DataPlaneBroken{std::current_exception()};
  }
}

std::string what(std::exception_ptr e) {
  try {
    std::rethrow_exception(e);
  } catch (const std::exception& x) {
    return x.what();
  } catch (...) {
    return "unknown error";
  }
}

// An elastic job being re-formed stops the engine on purpose: not an error worth a red line.
void log_stop(std::exception_ptr e) {
  try {
    std::rethrow_exception(e);
  } catch (const Error& x) {
    if (x.kind() == ErrorKind::kMembership) return spdlog::info("hvd engine stopped: {}", x.what());
  } catch (...) {
  }
  spdlog::error("hvd engine stopped: {}", what(e));
}

bool cache_keeps(const Response& r) {
  return r.error.empty() &&
         (r.type == OpType::kAllreduce || r.type == OpType::kBroadcast || r.type == OpType::kReducescatter);
}

}  // namespace

Engine::Engine(const Config& config, Communicator& comm, std::vector<int> job_ranks)
    : config_(config),
      comm_(comm),
      topology_(comm.topology()),
      executor_(comm, queue_),
      stall_(config.stall_check_time, config.stall_shutdown_time, RankNames(topology_.hosts, job_ranks)),
      timeline_(config.timeline_path, topology_.rank, config.timeline_mark_cycles, config.timeline_max_bytes),
      autotune_(config, topology_.rank),
      heartbeat_(heartbeat_for(config.stall_check_time)),
      requeue_after_(requeue_after_for(config)),
      fusion_threshold_(config.fusion_threshold),
      cycle_time_us_(config.cycle_time.count()),
      overlap_(engine_overlap_here(config.engine_overlap, topology_.local_size)),
      cache_(config.cache_capacity),
      stop_(config.error_file, topology_) {
  if (topology_.hosts.size() != static_cast<std::size_t>(topology_.size)) {
    topology_.hosts.assign(static_cast<std::size_t>(topology_.size), "?");
  }
  if (topology_.job_ranks.empty()) topology_.job_ranks = job_ranks;  // how errors name the ranks (job_rank())
  if (topology_.rank == 0) {
    controller_ = std::make_unique<Controller>(topology_.size, RankNames(topology_.hosts, std::move(job_ranks)), stall_);
  }
  thread_ = std::jthread([this] { run(); });
}

Engine::~Engine() { shutdown(); }

void Engine::shutdown() {
  queue_.request_shutdown();
  if (thread_.joinable()) thread_.join();
}

std::string Engine::next_name(OpType type) {
  std::lock_guard lock(names_mutex_);
  return std::string(name_of(type)) + ".noname." + std::to_string(name_counters_[static_cast<int>(type)]++);
}

void Engine::enqueue(std::vector<TensorEntry> entries, Pickup pickup) {
  for (auto& e : entries) {
    e.handle->driver = this;
    if (e.request.device == Device::Kind::kGPU) saw_gpu_.store(true, std::memory_order_relaxed);
  }
  queue_.enqueue(std::move(entries), pickup);
  // The queue is closed: these ops fail with the engine's failure, which is down to another rank.
  stop_.write_due_record();
}

// ---- who runs a cycle ----------------------------------------------------------------------------------------

void Engine::run() {
  std::unique_lock lock(cycle_mutex_);
  while (!finished_.load()) {
    const auto at = next_cycle_at(Clock::now());
    lock.unlock();
    const bool waited_on = queue_.wait_for_work(at);
    // A burst (a framework thread enqueueing a step's gradients one by one) is taken whole once it pauses, so one
    // cycle fuses all of it. With a spare CPU the engine reduces while the framework computes: a pause is 30 us,
    // the burst bounded by HOROVOD_CYCLE_TIME, a lone request goes at once. Without one, every cycle run during
    // the computation (a vote every rank joins, a reduction) takes a core from it, so the burst waits for a pause
    // of HOROVOD_CYCLE_TIME (widening while the burst goes on: so does each wake-up of this thread), or for the
    // thread that waits on it (drive), which runs it on its own core. GPU tensors are reduced by the GPU, on streams
    // this thread drives: they always overlap.
    const std::chrono::microseconds cycle_time{cycle_time_us_.load(std::memory_order_relaxed)};
    if (cycle_time.count() > 0 && !waited_on) {
      if (!overlap_.overlap && !saw_gpu_.load(std::memory_order_relaxed) && queue_.has_new()) {
        // A burst the waiter took leaves nothing for a cycle here: the next one, if it has begun, waits afresh.
        if (!queue_.wait_for_quiet(cycle_time, Clock::now() + kWholeBurstCycles * cycle_time,
                                   TensorQueue::Pause::kWidening)) {
          lock.lock();
          continue;
        }
      } else if (queue_.new_count() >= 2) {
        queue_.wait_for_quiet(kBurstGap, Clock::now() + cycle_time);
      }
    }
    lock.lock();
    // A waiting framework thread may have run the cycle meanwhile (drive).
    if (!finished_.load() && cycle_due(Clock::now())) run_cycle();
  }
}

void Engine::drive(HandleState& waiting) {
  // GPU streams and a joined rank's zero contributions stay with the background thread.
  bool ran = false;
  // An output allocator that waits on a handle runs inside a cycle already.
  const bool in_cycle = cycle_thread_.load() == std::this_thread::get_id();
  if (!in_cycle && !saw_gpu_.load(std::memory_order_relaxed) && !finished_.load()) {
    std::unique_lock lock(cycle_mutex_, std::try_to_lock);
    // Until the op is done: a cycle whose vote finds other ranks not ready yet leaves it in flight, and the next
    // cycle blocks in its vote until they come, as the background thread would, without two thread hand-offs.
    while (lock && !joined_ && !finished_.load() && !waiting.done()) {
      run_cycle();
      ran = true;
    }
  }
  // Whatever is left (other ranks are late, or another thread held the cycle) is the background thread's.
  if (!ran || !waiting.done()) queue_.wake();
}

bool Engine::cycle_due(Clock::time_point now) const {
  return queue_.has_new() || next_cycle_at(now) <= now || queue_.shutdown_requested();
}

Engine::Clock::time_point Engine::next_cycle_at(Clock::time_point now) const {
  if (requeued_) return now;
  const bool outstanding = queue_.in_flight() > 0 || joined_;
  if (outstanding) return last_cycle_end_ + delay_;
  return std::max(now, last_cycle_end_ + heartbeat_);
}

void Engine::run_cycle() {
  struct Owner {
    std::atomic<std::thread::id>& id;
    explicit Owner(std::atomic<std::thread::id>& i) : id(i) { id.store(std::this_thread::get_id()); }
    ~Owner() { id.store({}); }
  } owner(cycle_thread_);
  std::exception_ptr failure;
  try {
    if (cycle()) return note_pending(Clock::now());
    failure = stop_.error();
  } catch (const DataPlaneBroken& broken) {
    failure = broken.error;
    log_stop(failure);
  } catch (...) {
    failure = std::current_exception();
    log_stop(failure);
  }
  finish(failure);
}

void Engine::finish(std::exception_ptr failure) {
  stop_.finish(failure, queue_.in_flight() > 0);
  finished_.store(true);
  queue_.close(failure);
  queue_.wake();
}

// Rank 0 only, under HVD_ERROR_FILE: the op ranks wait in, written when it changes, for a hung job's report.
void Engine::note_pending(Clock::time_point now) {
  if (!controller_ || config_.error_file.empty() || now < next_pending_check_) return;
  next_pending_check_ = now + kPendingAfter;
  stop_.note_pending(controller_->oldest_pending(now - kPendingAfter));
}

// ---- one cycle -------------------------------------------------------------------------------------------------

bool Engine::cycle() {
  const auto start = Clock::now();
  const bool had_new = take_new_requests(start);
  requeue_slow_hits(start);
  const bool want_shutdown = queue_.shutdown_requested() && !shutdown_sent_;
  vote(had_new, want_shutdown, start);

  take_cached();
  ResponseList negotiated;
  if (vote_.full()) negotiated = negotiate(want_shutdown);
  if (negotiated.stopping()) adopt_stop(negotiated);
  const int executed = execute_all(negotiated.responses);
  // After executing: the cache's slots of this cycle's responses must not change before they ran.
  remember(negotiated.responses);
  const auto end = Clock::now();
  pace(vote_.any_new() || executed > 0, end);
  const bool keep_going = !negotiated.stopping();
  if (keep_going) tune(executed > 0, end);
  timeline_.cycle(start, end, vote_.full());
  return keep_going;
}

// The coordinator stops the job. After a stall every rank records why before any fails its ops, and all meet once:
// the first rank to exit gets the others stopped, and one stopped before its record leaves the report without it.
void Engine::adopt_stop(const ResponseList& negotiated) {
  if (stop_.adopt(negotiated.shutdown, negotiated.shutdown_blame)) data_plane([&] { comm_.barrier(); });
}

// Autotune (autotune.h): every rank ends a sample at the same cycle, since all ran the same responses, and adopts
// rank 0's choice there; the fusion threshold must change on every rank at once because each plans its fusion.
void Engine::tune(bool executed, Clock::time_point end) {
  if (!autotune_.cycle_end(executed, end)) return;
  const auto& p =
      autotune_.agree([&](const std::string& s) { return data_plane([&] { return comm_.broadcast_from_root(s); }); });
  set_fusion_threshold(p.fusion_threshold);
  set_cycle_time(std::chrono::duration_cast<std::chrono::microseconds>(p.cycle_time));
  // The choice as this engine now runs it, read back from the values its cycles use (not from the tuner), so the
  // line tells that the setting took effect: tests/integration/autotune.sh compares it with the log's final row.
  if (!autotune_.tuning()) {
    spdlog::info("autotune: fusion threshold {} bytes, cycle time {} ms", fusion_threshold_.load(),
                 static_cast<double>(cycle_time_us_.load()) / 1000.0);
  }
}

// Sorts the new requests: a cache hit waits in pending_hits_ for the vote; the rest go to the next negotiation.
bool Engine::take_new_requests(Clock::time_point now) {
  bool had_new = std::exchange(requeued_, false);
  queue_.take_new(taken_);
  for (const Request* q : taken_) {
    had_new = true;
    if (timeline_.enabled()) timeline_.requested(q->name, now);
    if (q->type == OpType::kJoin) joined_ = true;
    if (cache_.capacity() > 0 && ResponseCache::cacheable(*q)) {
      auto found = cache_.lookup(*q);
      if (found.kind == ResponseCache::Kind::kHit) {
        if (pending_hits_.size() <= found.slot) pending_hits_.resize(cache_.span());
        Hit& hit = pending_hits_[found.slot];
        if (!hit.request) {
          hit = Hit{q, now};
          continue;
        }
      }
      if (found.kind == ResponseCache::Kind::kStale) evict_.insert(found.slot);
    }
    uncached_.push_back(*q);
  }
  return had_new;
}

// A cached tensor that waits long for other ranks goes back to full negotiation, where the stall inspector can see
// which ranks are missing.
void Engine::requeue_slow_hits(Clock::time_point now) {
  if (!stall_.enabled()) return;
  for (std::size_t slot = 0; slot < pending_hits_.size(); ++slot) {
    const Hit& hit = pending_hits_[slot];
    if (hit.request && now - hit.since > requeue_after_) evict_.insert(slot);
  }
}

void Engine::vote(bool had_new, bool want_shutdown, Clock::time_point now) {
  const bool root_check = controller_ && controller_->wants_cycle(now);
  CycleVote::Local local;
  local.needs_full = !uncached_.empty() || want_shutdown || root_check || !evict_.empty();
  local.has_new = had_new;
  local.joined = joined_;
  // Built from what this rank holds, not by probing every slot: the cache may be far larger than one step.
  vote_.begin(cache_.span(), local);
  for (std::size_t slot = 0; slot < pending_hits_.size(); ++slot) {
    if (pending_hits_[slot].request) vote_.ready(slot);
  }
  for (auto slot : evict_) vote_.evict(slot);
  evict_.clear();
  data_plane([&] { comm_.allreduce(vote_.data(), vote_.size(), DataType::kUInt8, ReduceOp::kMin); });
}

// The cached responses every rank is ready for, in slot order (the same on every rank), into ready_slots_; slots
// some rank dropped are erased everywhere, and this rank's requests for them renegotiated.
void Engine::take_cached() {
  ready_slots_.clear();
  for (std::size_t s = 0; s < vote_.span(); ++s) {
    if (!vote_.kept_everywhere(s)) {
      renegotiate(s);
      cache_.erase(s);
      continue;
    }
    if (!vote_.all_joined() && vote_.ready_everywhere(s) && cache_.has(s)) {
      ready_slots_.push_back(s);
      cache_.touch(s);
      if (s < pending_hits_.size()) pending_hits_[s] = {};
    }
  }
}

void Engine::renegotiate(std::size_t slot) {
  if (slot >= pending_hits_.size() || !pending_hits_[slot].request) return;
  uncached_.push_back(*pending_hits_[slot].request);
  pending_hits_[slot] = {};
  requeued_ = true;
}

// Full negotiation (controller.h): every rank's uncached requests to the coordinator, its answer to every rank.
ResponseList Engine::negotiate(bool want_shutdown) {
  RequestList mine{std::exchange(uncached_, {}), want_shutdown};
  requeued_ = false;  // whatever went back to uncached_ is in this gather
  if (want_shutdown) shutdown_sent_ = true;
  auto gathered = data_plane([&] { return comm_.gather_to_root(encode(mine)); });
  std::string reply;
  if (controller_) {
    std::vector<RequestList> lists;
    lists.reserve(gathered.size());
    for (const auto& g : gathered) lists.push_back(decode_requests(g));
    reply = encode(controller_->coordinate(lists, Clock::now()));
  }
  reply = data_plane([&] { return comm_.broadcast_from_root(reply); });
  return decode_responses(reply);
}

// Every rank puts the same negotiated single-tensor responses in the same order: the caches stay identical.
void Engine::remember(const std::vector<Response>& negotiated) {
  if (cache_.capacity() == 0) return;
  for (const auto& r : negotiated) {
    if (!cache_keeps(r) || r.names.size() != 1) continue;
    if (auto evicted = cache_.put(r)) renegotiate(*evicted);
  }
}

// Fuses the cycle's responses (cached first, then negotiated: the same list on every rank) and runs them in order.
// A cycle of cached responses only, like the last one, runs the plan it made then.
int Engine::execute_all(const std::vector<Response>& negotiated) {
  const std::size_t threshold = fusion_threshold_.load(std::memory_order_relaxed);
  const bool reuse = negotiated.empty() && !ready_slots_.empty() && plan_.slots == ready_slots_ &&
                     plan_.cache_version == cache_.version() && plan_.threshold == threshold;
  if (!reuse) {
    std::vector<Response> singles;
    singles.reserve(ready_slots_.size() + negotiated.size());
    for (auto s : ready_slots_) singles.push_back(cache_.at(s));
    singles.insert(singles.end(), negotiated.begin(), negotiated.end());
    plan_.fused = plan_fusion(std::move(singles), threshold);
    plan_.slots = negotiated.empty() ? ready_slots_ : std::vector<std::size_t>{};
    plan_.cache_version = cache_.version();
    plan_.threshold = threshold;
  }
  int executed = 0;
  for (const auto& r : plan_.fused) {
    execute(r);
    if (r.type == OpType::kJoin) joined_ = false;  // every rank joined: the next round starts fresh
    ++executed;
  }
  return executed;
}

void Engine::execute(const Response& r) {
  auto start = Clock::now();
  // Error responses and barrier/join complete the same way for every device: the CPU executor does it.
  const bool gpu =
      r.device == Device::Kind::kGPU && r.error.empty() && r.type != OpType::kBarrier && r.type != OpType::kJoin;
  if (gpu)
    execute_on_gpu(r);
  else
    executor_.execute(r);
  timeline_.op(r, start, Clock::now());
  autotune_.executed(r);
}

void Engine::execute_on_gpu(const Response& r) {
  GpuEntries entries;
  entries.reserve(r.names.size());
  for (const auto& n : r.names) entries.push_back(queue_.take(n));
  if (!gpu_) gpu_ = make_gpu_backend(comm_, config_);
  gpu_->execute(r, std::move(entries));
}

// When the background thread looks again if requests are still in flight (engine.h).
void Engine::pace(bool progress, Clock::time_point end) {
  if (progress) {
    last_progress_ = end;
    delay_ = {};
  } else {
    // Within the first second of waiting the back-off stays under HOROVOD_CYCLE_TIME, so requests that wait for
    // other ranks are picked up at least that often (Horovod's pace); after that it grows to kMaxBackoff.
    const auto waited = end - last_progress_;
    const Clock::duration cap =
        waited < std::chrono::seconds(1)
            ? std::max<Clock::duration>(std::chrono::microseconds(cycle_time_us_.load(std::memory_order_relaxed)),
                                        kMinBackoff)
            : kMaxBackoff;
    delay_ = std::clamp<Clock::duration>(waited / 8, kMinBackoff, cap);
  }
  last_cycle_end_ = end;
}

}  // namespace hvd::detail
