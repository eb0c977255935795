// The ranks of one host joined through one shared-memory segment: slots to exchange data and phase counters to
// order the exchange. A "phase" ends when a rank calls arrive(); wait_all() returns once every rank of the group
// has completed as many phases as this one. Data go through "rounds": a round writes own slot buffer b, has at
// least one arrive+wait_all, then reads peers' buffer b; rounds alternate buffers, so a slot is never rewritten
// while a peer may still read it.
// Waiting: a short adaptive spin (bounded; yielding when ranks outnumber cores), then futex sleep with a timeout
// after which the peers' processes are checked. Any failure (dead peer, abort by a peer, a local error passed to
// abort()) puts the group in a failed state: the current and every later wait throws hvd::Error with the reason.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "runtime/comm/peer_info.h"
#include "runtime/comm/shm/layout.h"
#include "runtime/comm/shm/peer_watch.h"
#include "runtime/comm/shm/segment.h"
#include "runtime/comm/stop_reason.h"
#include "store/store.h"

namespace hvd::detail {

class ShmGroup {
 public:
  // peers: the ranks of this host in global-rank order; local_rank indexes it. Collective over the peers.
  ShmGroup(Store& store, const std::string& key_prefix, const std::string& job_id, std::vector<PeerInfo> peers,
           int local_rank, std::size_t chunk_bytes, std::chrono::milliseconds timeout);
  ~ShmGroup();
  ShmGroup(const ShmGroup&) = delete;
  ShmGroup& operator=(const ShmGroup&) = delete;

  int rank() const { return rank_; }
  int size() const { return static_cast<int>(peers_.size()); }
  std::size_t chunk() const { return chunk_; }
  const PeerInfo& peer(int local_rank) const { return peers_[static_cast<std::size_t>(local_rank)]; }

  // Starts a round and returns its buffer index (0/1).
  int next_round() { return static_cast<int>(round_++ & 1u); }
  std::byte* slot(int local_rank, int buffer) const {
    return slots_ + (static_cast<std::size_t>(local_rank) * 2 + static_cast<std::size_t>(buffer)) * chunk_;
  }

  void arrive();
  // Both throw hvd::Error when the group has failed; `op` names the collective in the message.
  void wait_all(const char* op);
  void sync(const char* op) {
    arrive();
    wait_all(op);
  }
  // Marks the group failed with `reason` (first caller wins) and wakes every waiter. Never throws.
  void abort(const std::string& reason) noexcept;
  // From any thread (Communicator::abort): this rank's current and every later wait throws ErrorKind::kMembership
  // saying `stop`; the peers are not told (each hears hvdrun's reset itself). Never throws.
  void interrupt(const Stop& stop) noexcept;
  // Throws if the group has failed.
  void check(const char* op);

 private:
  void wait_for(int peer, std::uint32_t target, const char* op);
  bool reached(int peer, std::uint32_t target) const;
  [[noreturn]] void throw_failure(const char* op);
  bool interrupted() const { return interrupt_.stopped(); }

  std::vector<PeerInfo> peers_;
  int rank_;
  std::size_t chunk_;
  ShmSegment segment_;
  shm::Header* header_;
  std::vector<shm::RankControl*> controls_;
  std::byte* slots_;
  PeerWatch watch_;
  std::uint32_t phase_ = 0;  // phases this rank has completed
  std::uint32_t round_ = 0;
  std::chrono::nanoseconds spin_max_, spin_;  // adaptive spin budget, within [1 us, spin_max_]
  std::chrono::nanoseconds pure_spin_;        // spinning without sched_yield (all of it unless oversubscribed)
  std::optional<std::string> failed_;         // set once; every later call rethrows it
  int failed_peer_ = -1;                      // the dead rank (its rank in the job), when this rank found it
  StopReason interrupt_;
};

}  // namespace hvd::detail
