#include "runtime/comm/shm/cpu_binding.h"

#include <sched.h>

#include <vector>

namespace hvd::detail {

bool bind_to_own_cores(int local_rank, int local_size) {
  cpu_set_t allowed;
  if (local_size < 2 || ::sched_getaffinity(0, sizeof allowed, &allowed) != 0) return false;
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &allowed)) cpus.push_back(c);
  const int share = static_cast<int>(cpus.size()) / local_size;
  if (share < 1) return false;
  cpu_set_t mine;
  CPU_ZERO(&mine);
  for (int i = local_rank * share; i < (local_rank + 1) * share; ++i) CPU_SET(cpus[static_cast<std::size_t>(i)], &mine);
  return ::sched_setaffinity(0, sizeof mine, &mine) == 0;
}

}  // namespace hvd::detail
