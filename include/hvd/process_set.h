// Process sets: collectives among a subset of the job's ranks (Horovod's process sets). Set 0 is the global set
// (every rank). Others come from init(process_sets) (static: every rank passes the same list) or, when the job runs
// with HOROVOD_DYNAMIC_PROCESS_SETS=1, from add_process_set()/remove_process_set(). Both are collective over every
// rank of the job (all ranks call them in the same order with the same ranks), members and non-members alike.
// Each set negotiates on its own (its own coordinator, cache and engine thread over a communicator of its ranks):
// ops on disjoint sets never wait for each other. Inside a set, ranks are numbered by their order in the set
// (ProcessSet::rank()); a broadcast's root is a rank of the job (the global rank), which must be in the set.
// An op on a set this rank is not in throws hvd::Error (usage) naming the set and its ranks.
// Elastic jobs: a reset drops every set but the global one (the ranks change); re-add them after hvd::elastic::reset,
// or call init() with the static list again.
#pragma once

#include <cstdint>
#include <vector>

#include "hvd/export.h"

namespace hvd {

class HVD_API ProcessSet {
 public:
  ProcessSet() = default;  // the global set
  std::int32_t id() const { return id_; }
  const std::vector<int>& ranks() const { return ranks_; }  // job ranks, ascending
  int rank() const { return my_rank_; }  // this rank's place in the set, -1 when not in it
  int size() const { return static_cast<int>(ranks_.size()); }
  bool included() const { return rank() >= 0; }

 private:
  friend struct ProcessSetAccess;
  std::int32_t id_ = 0;
  std::vector<int> ranks_;
  int my_rank_ = -1;
};

// Starts the runtime with static process sets besides the global one; ids 1, 2, ... in the list's order.
// Bad lists (a duplicate or out-of-range rank, an empty set, the same ranks twice) throw hvd::Error naming them.
HVD_API void init(const std::vector<std::vector<int>>& process_sets);

HVD_API ProcessSet global_process_set();
// The set with this id (0: global); throws hvd::Error (usage) for an id that is not registered.
HVD_API ProcessSet process_set(std::int32_t id);
HVD_API std::vector<ProcessSet> process_sets();  // every registered set, the global one first
// HOROVOD_DYNAMIC_PROCESS_SETS=1 only. Collective over all ranks; returns the new set (ids are never reused).
HVD_API ProcessSet add_process_set(const std::vector<int>& ranks);
// Collective over all ranks. Refuses (hvd::Error, usage) the global set, an unknown id, and a set with an op of
// this rank in flight (wait for it first).
HVD_API void remove_process_set(const ProcessSet& set);

}  // namespace hvd
