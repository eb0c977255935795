// Where framework threads leave their requests for the engine's cycle, and where the cycle finds each in-flight
// tensor's buffers and handle when a response names it. Thread-safe; only the thread running a cycle removes
// entries, so a pointer from find() stays valid until a cycle calls take() for the same name. The map's nodes of
// taken entries are kept and reused by later enqueues, so a repeated step allocates no node per tensor.
#pragma once

#include <chrono>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "hvd/types.h"
#include "runtime/engine/handle_state.h"
#include "runtime/engine/message.h"

namespace hvd::detail {

struct TensorEntry {
  Request request;
  TensorView input;
  TensorView output;
  OutputAllocator allocate;
  std::shared_ptr<HandleState> handle;
};

class TensorQueue {
 public:
  using Clock = std::chrono::steady_clock;

  // Who picks the entries up: the background thread (woken now), or the caller, who waits on them next and runs
  // the cycle itself (Engine::drive); the background thread then finds them only at its next wake-up.
  enum class Pickup { kBackground, kCaller };
  // Adds all entries or none (a group is negotiated as one). A name already in flight on this rank, or a closed
  // queue, fails the entries' handles instead.
  void enqueue(std::vector<TensorEntry> entries, Pickup pickup = Pickup::kBackground);

  // Background thread: blocks until requests for it arrive, wake() is called, or `deadline` passes. True when
  // woken by wake(): a thread waits on a handle the background thread has to finish.
  bool wait_for_work(Clock::time_point deadline);
  void wake();
  // Moves the new requests into `into` (cleared first; its capacity is reused). Each points into its entry, which
  // stays until a cycle take()s it (or close()).
  void take_new(std::vector<const Request*>& into);
  bool has_new() const;
  std::size_t new_count() const;
  // Background thread: while framework threads are enqueueing a burst (the last enqueue less than `gap` ago),
  // sleeps until the burst pauses, `deadline` passes or wake() is called, so one cycle takes the whole burst.
  // Enqueues do not wake it. kWidening doubles the pause it waits for each time it wakes to find the burst going
  // on: a few wake-ups per burst rather than one per `gap`, each of which takes a busy core from the burst's
  // producer or a peer's. Returns false when another thread took the new requests meanwhile (Engine::drive): what
  // is new now is the next burst, whose own wait starts afresh.
  enum class Pause { kFixed, kWidening };
  bool wait_for_quiet(Clock::duration gap, Clock::time_point deadline, Pause pause = Pause::kFixed);

  TensorEntry* find(const std::string& name);
  std::optional<TensorEntry> take(const std::string& name);
  // The entries of `names` in order (empty where this rank has none: joined), under one lock.
  void take(const std::vector<std::string>& names, std::vector<std::optional<TensorEntry>>& into);
  std::size_t in_flight() const;

  // Fails every in-flight entry with `error` and every later enqueue too. Returns false if already closed.
  bool close(std::exception_ptr error);
  bool closed() const;

  void request_shutdown();
  bool shutdown_requested() const;

 private:
  using Entries = std::unordered_map<std::string, TensorEntry>;
  void add(TensorEntry&& entry);                                        // caller holds mutex_
  void remove(Entries::iterator it, std::optional<TensorEntry>& into);  // caller holds mutex_

  mutable std::mutex mutex_;
  std::condition_variable work_;     // new requests, wake(), shutdown
  Entries entries_;                  // guarded by mutex_: in flight on this rank
  std::vector<const Request*> new_;  // guarded by mutex_: not yet taken by a cycle
  std::exception_ptr closed_;        // guarded by mutex_
  bool woken_ = false;               // guarded by mutex_
  bool announced_ = false;           // guarded by mutex_: new_ holds background pickups
  std::uint64_t takes_ = 0;          // guarded by mutex_: take_new() calls, to tell a burst taken by another thread
  bool sleeping_ = false;            // guarded by mutex_: in wait_for_work, wants a notify
  Clock::time_point last_enqueue_;   // guarded by mutex_
  bool shutdown_ = false;            // guarded by mutex_
  // Guarded by mutex_: the emptied nodes of taken entries, as many as were ever in flight at once.
  std::vector<Entries::node_type> spare_;
};

}  // namespace hvd::detail
