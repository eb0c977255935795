#include "runtime/comm/shm/peer_watch.h"

#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

namespace hvd::detail {

PeerWatch::PeerWatch(const std::vector<int>& pids) : pids_(pids) {
  const int self = static_cast<int>(::getpid());
  for (int pid : pids_) {
    int fd = -1;
#ifdef SYS_pidfd_open
    if (pid != self) fd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
#endif
    pidfds_.emplace_back(fd);
  }
}

int PeerWatch::find_dead() const {
  const int self = static_cast<int>(::getpid());
  for (std::size_t i = 0; i < pids_.size(); ++i) {
    if (pids_[i] == self) continue;
    if (pidfds_[i].valid()) {
      pollfd p{pidfds_[i].get(), POLLIN, 0};
      if (::poll(&p, 1, 0) > 0) return static_cast<int>(i);
    } else if (::kill(pids_[i], 0) != 0 && errno == ESRCH) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

}  // namespace hvd::detail
