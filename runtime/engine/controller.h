// The coordinator's side of negotiation (rank 0). The protocol, one full cycle:
//  1. every rank sends the requests it has not announced yet (RequestList) through gather_to_root;
//  2. the controller adds them to its table; a tensor is ready once every rank has submitted it or joined;
//     a group is ready once all of its tensors are;
//  3. each ready tensor is validated (validation.h): a mismatch becomes an error response for that tensor alone;
//  4. ready responses go out one per tensor, in arrival order (every rank fuses them itself, with its cache hits:
//     fusion.h, in the engine); a join completes when every rank has joined;
//  5. the stall inspector looks at what is still pending; any rank's shutdown, or a stall past the shutdown time,
//     sets the list's shutdown reason;
//  6. the ResponseList goes to every rank through broadcast_from_root, and all execute it in order.
// Collaborators come through the constructor; the controller itself does no I/O.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/failure_record.h"
#include "runtime/engine/message.h"
#include "runtime/engine/stall_inspector.h"

namespace hvd::detail {

class Controller {
 public:
  using Clock = std::chrono::steady_clock;
  Controller(int size, RankNames names, StallInspector& stall);

  // lists[r] is rank r's RequestList of this cycle.
  ResponseList coordinate(const std::vector<RequestList>& lists, Clock::time_point now = Clock::now());

  // True when the coordinator wants a full cycle even without new requests (a stall check is due).
  bool wants_cycle(Clock::time_point now) const { return !table_.empty() && stall_.due(now); }
  std::size_t pending() const { return table_.size(); }
  // The oldest tensor some ranks submitted and others did not, first seen before `older_than` (what the ranks
  // wait in when the job hangs; hvdrun's report names its missing ranks); nullopt when none.
  std::optional<PendingOp> oldest_pending(Clock::time_point older_than) const;

 private:
  struct Pending {
    std::vector<std::optional<Request>> by_rank;
    int count = 0;
    std::uint64_t seq = 0;
    Clock::time_point first_seen;
  };
  void add(const Request& request, Clock::time_point now, std::vector<std::string>& errors);
  bool ready(const Pending& p) const;
  // The steps of coordinate(), numbered as in the protocol above.
  void take(const std::vector<RequestList>& lists, Clock::time_point now, ResponseList& out,
            std::vector<std::string>& errors);
  void answer_ready(ResponseList& out);
  void complete_join(ResponseList& out);
  void fail_stalled(Clock::time_point now, ResponseList& out);

  int size_;
  RankNames names_;
  StallInspector& stall_;
  std::unordered_map<std::string, Pending> table_;  // submitted by some ranks, not yet answered
  std::map<std::uint64_t, std::string> order_;      // table_ in arrival order: responses keep that order
  std::uint64_t next_seq_ = 0;
  std::vector<bool> joined_;
  int joined_count_ = 0;
  int last_joined_ = -1;
};

}  // namespace hvd::detail
