// Tells whether the processes of local peers are still alive, without waiting: a pidfd per peer process
// (readable once the process has exited, zombie or not); kill(pid, 0) where pidfds are unavailable.
// Peers that are threads of this process (the tests) are never reported dead.
#pragma once

#include <string>
#include <vector>

#include "common/unique_fd.h"

namespace hvd::detail {

class PeerWatch {
 public:
  explicit PeerWatch(const std::vector<int>& pids);  // pids[i] = process of local rank i
  // Index of a peer whose process has exited, or -1.
  int find_dead() const;

 private:
  std::vector<int> pids_;
  std::vector<UniqueFd> pidfds_;  // invalid for ourselves and where pidfd_open failed
};

}  // namespace hvd::detail
