#include "runtime/engine/engine.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "hvd/error.h"
#include "runtime/engine/fusion.h"
#include "runtime/engine/wire.h"

namespace hvd::detail {
namespace {

constexpr auto kMinBackoff = std::chrono::microseconds(20);
constexpr auto kMaxBackoff = std::chrono::milliseconds(100);
constexpr auto kBurstGap = std::chrono::microseconds(30);  // enqueues closer than this belong to one burst

std::chrono::milliseconds heartbeat_for(std::chrono::seconds stall_check) {
  if (stall_check.count() == 0) return std::chrono::seconds(5);
  auto quarter = std::chrono::duration_cast<std::chrono::milliseconds>(stall_check) / 4;
  return std::clamp<std::chrono::milliseconds>(quarter, std::chrono::milliseconds(100), std::chrono::seconds(5));
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

}  // namespace

Engine::Engine(const Config& config, Communicator& comm)
    : config_(config),
      comm_(comm),
      topology_(comm.topology()),
      executor_(comm, queue_),
      stall_(config.stall_check_time, config.stall_shutdown_time, topology_.hosts),
      timeline_(config.timeline_path, topology_.rank, config.timeline_mark_cycles, config.timeline_max_bytes),
      autotune_(config, topology_.rank),
      heartbeat_(heartbeat_for(config.stall_check_time)),
      cache_(config.cache_capacity) {
  if (topology_.hosts.size() != static_cast<std::size_t>(topology_.size)) {
    topology_.hosts.assign(static_cast<std::size_t>(topology_.size), "?");
  }
  if (topology_.rank == 0) {
    controller_ = std::make_unique<Controller>(topology_.size, topology_.hosts, config.fusion_threshold, stall_);
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

Engine::Clock::time_point Engine::next_cycle_at(Clock::time_point now) const {
  if (requeued_) return now;
  const bool outstanding = queue_.in_flight() > 0 || joined_;
  if (outstanding) return last_cycle_end_ + delay_;
  auto at = now + heartbeat_;
  return at;
}

void Engine::run() {
  std::exception_ptr failure;
  try {
    while (true) {
      queue_.wait_for_work(next_cycle_at(Clock::now()));
      if (!cycle()) break;
    }
  } catch (const DataPlaneBroken& broken) {
    failure = broken.error;
  } catch (...) {
    failure = std::current_exception();
  }
  if (failure) {
    try {
      std::rethrow_exception(failure);
    } catch (const std::exception& e) {
      spdlog::error("hvd engine stopped: {}", e.what());
    }
    queue_.close(failure);
    return;
  }
  queue_.close(std::make_exception_ptr(Error("hvd is shut down: " + stop_reason_)));
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
  timeline_.op(r, start, Clock::now());  // HOOK(timeline): op span, and its negotiation wait
  autotune_.executed(r);                 // HOOK(autotune): bytes of this sample
}

void Engine::execute_on_gpu(const Response& r) {
  GpuEntries entries;
  entries.reserve(r.names.size());
  for (const auto& n : r.names) entries.push_back(queue_.take(n));
  if (!gpu_) gpu_ = make_gpu_backend(comm_, config_);
  gpu_->execute(r, std::move(entries));
}

bool Engine::cycle() {
  // A lone request goes at once; a burst (several already queued: a framework thread enqueueing a step's
  // gradients) is taken whole once it pauses, bounded by HOROVOD_CYCLE_TIME, so one cycle fuses all of it.
  if (config_.cycle_time.count() > 0 && queue_.new_count() >= 2) {
    queue_.wait_for_quiet(kBurstGap, Clock::now() + config_.cycle_time);
  }
  const auto start = Clock::now();
  bool had_new = requeued_;
  requeued_ = false;
  for (auto& q : queue_.take_new()) {
    had_new = true;
    timeline_.requested(q.name, start);  // HOOK(timeline): negotiation starts
    if (q.type == OpType::kJoin) joined_ = true;
    if (cache_.capacity() > 0 && ResponseCache::cacheable(q)) {
      auto found = cache_.lookup(q);
      if (found.kind == ResponseCache::Kind::kHit && !pending_hits_.count(found.slot)) {
        pending_hits_.emplace(found.slot, Hit{std::move(q), start});
        continue;
      }
      if (found.kind == ResponseCache::Kind::kStale) evict_.insert(found.slot);
    }
    uncached_.push_back(std::move(q));
  }
  // A cached tensor that waits long for other ranks goes back to full negotiation, where the stall inspector
  // can see which ranks are missing.
  if (stall_.enabled()) {
    for (const auto& [slot, hit] : pending_hits_) {
      if (start - hit.since > config_.stall_check_time / 2) evict_.insert(slot);
    }
  }
  const bool want_shutdown = queue_.shutdown_requested() && !shutdown_sent_;
  const bool root_check = controller_ && controller_->wants_cycle(start);

  // Step 1: one allreduce (min) of bytes: [need full, no new requests, joined, have slot s..., keep slot s...].
  const std::size_t span = cache_.span();
  // Built from what this rank holds, not by probing every slot: the cache may be far larger than one step.
  bits_.assign(3 + 2 * span, 0);
  auto* bits = bits_.data();
  bits[0] = (!uncached_.empty() || want_shutdown || root_check || !evict_.empty()) ? 0 : 1;
  bits[1] = had_new ? 0 : 1;
  bits[2] = joined_ ? 1 : 0;
  if (joined_) std::fill(bits + 3, bits + 3 + span, std::uint8_t{1});
  for (const auto& [slot, hit] : pending_hits_) bits[3 + slot] = 1;
  std::fill(bits + 3 + span, bits + 3 + 2 * span, std::uint8_t{1});
  for (auto slot : evict_) bits[3 + span + slot] = 0;
  evict_.clear();
  data_plane([&] { comm_.allreduce(bits, bits_.size(), DataType::kUInt8, ReduceOp::kMin); });
  const bool full = bits[0] == 0, any_new = bits[1] == 0, all_joined = bits[2] == 1;

  std::vector<Response> cached;
  for (std::size_t s = 0; s < span; ++s) {
    if (bits[3 + span + s] == 0) {
      if (auto it = pending_hits_.find(s); it != pending_hits_.end()) {
        uncached_.push_back(std::move(it->second.request));
        pending_hits_.erase(it);
        requeued_ = true;
      }
      cache_.erase(s);
      continue;
    }
    if (!all_joined && bits[3 + s] == 1 && cache_.has(s)) {
      cached.push_back(cache_.at(s));
      cache_.touch(s);
      pending_hits_.erase(s);
    }
  }
  int executed = 0;
  for (const auto& r : plan_fusion(std::move(cached), config_.fusion_threshold)) {
    execute(r);
    ++executed;
  }

  bool keep_going = true;
  if (full) {
    // Step 2: full negotiation (controller.h).
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
    ResponseList list = decode_responses(reply);
    for (const auto& r : list.responses) {
      execute(r);
      ++executed;
      if (r.type == OpType::kJoin) joined_ = false;  // every rank joined: the next round starts fresh
      if (!r.error.empty() || cache_.capacity() == 0) continue;
      if (r.type != OpType::kAllreduce && r.type != OpType::kBroadcast && r.type != OpType::kReducescatter) continue;
      for (std::size_t i = 0; i < r.names.size(); ++i) {
        Response single = r;
        single.names = {r.names[i]};
        single.shapes = {r.shapes[i]};
        if (auto evicted = cache_.put(single)) {
          if (auto it = pending_hits_.find(*evicted); it != pending_hits_.end()) {
            uncached_.push_back(std::move(it->second.request));
            pending_hits_.erase(it);
            requeued_ = true;
          }
        }
      }
    }
    if (!list.shutdown.empty()) {
      stop_reason_ = list.shutdown;
      keep_going = false;
    }
  }

  const auto end = Clock::now();
  if (any_new || executed > 0) {
    last_progress_ = end;
    delay_ = {};
  } else {
    // Within the first second of waiting the back-off stays under HOROVOD_CYCLE_TIME, so requests that wait for
    // other ranks are picked up at least that often (Horovod's pace); after that it grows to kMaxBackoff.
    const auto waited = end - last_progress_;
    const Clock::duration cap =
        waited < std::chrono::seconds(1) ? std::max<Clock::duration>(config_.cycle_time, kMinBackoff) : kMaxBackoff;
    delay_ = std::clamp<Clock::duration>(waited / 8, kMinBackoff, cap);
  }
  last_cycle_end_ = end;
  // HOOK(autotune): every rank ends a sample at the same cycle (same responses executed) and agrees there.
  if (keep_going && autotune_.cycle_end(executed > 0, end)) {
    const auto& p =
        autotune_.agree([&](const std::string& s) { return data_plane([&] { return comm_.broadcast_from_root(s); }); });
    config_.fusion_threshold = p.fusion_threshold;
    config_.cycle_time = p.cycle_time;
    if (controller_) controller_->set_fusion_threshold(p.fusion_threshold);
  }
  timeline_.cycle(start, end, full);  // HOOK(timeline): cycle span / mark
  return keep_going;
}

}  // namespace hvd::detail
