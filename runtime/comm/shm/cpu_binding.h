// Keeps the ranks of one host off each other's cores. Two ranks that share a core exchange through context
// switches: an 8-byte shared-memory allreduce then takes 6-7 us instead of 0.2 us (measured by pinning both ranks
// of np=2 to one CPU, then to two), and the scheduler never separates them by itself, because ranks that wait by
// yielding or sleeping never look busy. So when the host's ranks fit on the cores this process may use, each rank
// takes an equal, disjoint share of them (local rank i: the i-th share, in CPU order), like mpirun's binding.
#pragma once

namespace hvd::detail {

// Binds the calling thread, and so every thread it starts later, to local rank `local_rank`'s share of the CPUs
// in this process's affinity mask. Does nothing when `local_size` ranks outnumber those CPUs (sharing cannot be
// avoided; the shared-memory wait then yields) or when the mask cannot be read. Returns whether it bound.
bool bind_to_own_cores(int local_rank, int local_size);

}  // namespace hvd::detail
