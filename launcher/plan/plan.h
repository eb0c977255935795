// The rank plan: which host runs which rank, as a pure function of the host list and -np.
// Ranks fill hosts block by block in the order given; local_rank is the index on the host; cross_rank is the
// host's position among the hosts that have that local_rank, cross_size their count (Horovod's definition).
#pragma once

#include <string>
#include <vector>

#include "common/error.h"
#include "launcher/plan/hosts.h"

namespace hvd::launcher {

struct Slot {
  std::string host;  // HostSpec::name, also the worker's HOROVOD_HOSTNAME
  int rank = 0;
  int local_rank = 0;
  int local_size = 0;
  int cross_rank = 0;
  int cross_size = 0;
  bool operator==(const Slot&) const = default;
};

struct Plan {
  std::vector<HostSpec> hosts;  // only hosts that got at least one rank, in order; slots = ranks placed there
  std::vector<Slot> slots;      // indexed by rank

  int size() const { return static_cast<int>(slots.size()); }
  std::vector<int> ranks_on(const std::string& host) const;
};

// Names the shortfall: "-np 8 but the hosts offer 4 slots (h1:2, h2:2); lower -np or add hosts".
class PlanError : public UsageError {
 public:
  using UsageError::UsageError;
};

// np <= 0 places a rank on every slot; np above the total slots throws PlanError.
Plan make_plan(const std::vector<HostSpec>& hosts, int np);
// make_plan's checks alone, for the command line to refuse a shortfall before anything else runs.
void check_plan_fits(const std::vector<HostSpec>& hosts, int np);

}  // namespace hvd::launcher
