// Creates this rank's NCCL communicators, collectively over every rank of the CPU communicator, in one gather and
// one broadcast (the same order on every rank, under hvdrun or mpirun alike):
//   1. every rank probes its device and, for hierarchical allreduce, each host's local rank 0 makes a unique id
//      for its host; rank 0 gathers the outcomes;
//   2. rank 0 makes the global unique id and broadcasts it with every host's id, whether hierarchical allreduce
//      is on (its HOROVOD_HIERARCHICAL_ALLREDUCE decides for all), or the reasons some rank cannot take part;
//   3. every rank initializes the global communicator and, when hierarchical, the one of its host.
// A rank without a usable device makes every rank throw the same hvd::Error (nobody waits in ncclCommInitRank).
#pragma once

#include <string>

#include "runtime/comm/communicator.h"
#include "runtime/engine/gpu/cuda_resources.h"

namespace hvd::detail {

struct NcclSetup {
  NcclComm global;  // every rank
  NcclComm local;   // the ranks of this host; empty when allreduce is flat
};

// Hierarchical allreduce needs ranks on several hosts and the same number of ranks on every host.
bool hierarchical_possible(const Topology& topology);

// The error's text completes "<op> '<name>': GPU tensor on device <d> but ...".
NcclSetup setup_nccl(Communicator& cpu, int device, bool want_hierarchical);

}  // namespace hvd::detail
