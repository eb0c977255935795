// The vote every rank casts at the start of a cycle: one allreduce (min) of a byte vector that says, for the whole
// job at once, whether a full negotiation is needed, whether anything new arrived anywhere, whether every rank has
// joined, and per response-cache slot whether every rank has that tensor ready and whether every rank keeps the
// slot. Layout (bytes): the flags of Flag, then `span` "ready" bytes, then `span` "keep" bytes. A byte is 1 for
// "yes" on this rank, so min over ranks is "yes on every rank". The span is the cache's span, equal on all ranks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace hvd::detail {

class CycleVote {
 public:
  // What this rank says about itself.
  struct Local {
    bool needs_full = false;  // uncached requests, a shutdown to announce, a stall check due, or slots to evict
    bool has_new = false;     // requests taken since the last cycle (progress, for the back-off)
    bool joined = false;      // hvd::join() was called: counts as ready for every slot
  };

  // Starts a vote for a cache of `span` slots: every slot not ready and kept.
  void begin(std::size_t span, const Local& local);
  void ready(std::size_t slot) { bytes_[kFlags + slot] = 1; }
  void evict(std::size_t slot) { bytes_[kFlags + span_ + slot] = 0; }

  // The buffer the allreduce (uint8, min) runs over, in place.
  std::uint8_t* data() { return bytes_.data(); }
  std::size_t size() const { return bytes_.size(); }

  // After the allreduce: the job's answer.
  bool full() const { return bytes_[kNoFullNeeded] == 0; }
  bool any_new() const { return bytes_[kNothingNew] == 0; }
  bool all_joined() const { return bytes_[kJoined] == 1; }
  bool ready_everywhere(std::size_t slot) const { return bytes_[kFlags + slot] == 1; }
  bool kept_everywhere(std::size_t slot) const { return bytes_[kFlags + span_ + slot] == 1; }
  std::size_t span() const { return span_; }

 private:
  // Flags are phrased so that min over ranks answers "any rank wants it" with 0.
  enum Flag : std::size_t { kNoFullNeeded, kNothingNew, kJoined, kFlags };
  std::size_t span_ = 0;
  std::vector<std::uint8_t> bytes_;  // reused across cycles
};

}  // namespace hvd::detail
