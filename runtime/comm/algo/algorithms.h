// Collectives over any Links (algo/links.h): the TCP communicator runs them over all ranks, the hierarchical one
// over the host leaders. Each is a free function; `scratch` is the caller's reusable buffer (grown, never shrunk,
// so pages are touched once). Results are bit-identical on every rank.
//   ring_allreduce      reduce-scatter + allgather in a ring, each step pipelined in kPipelineBytes pieces
//   tree_allreduce      binomial reduce to rank 0 then binomial broadcast: 2 log n latency, for small messages
//   ring_reducescatter  ring, rank r ends with the reduction of block r (counts[r] elements)
//   ring_allgatherv     ring, blocks forwarded n-1 times
//   tree_broadcast      binomial tree from root, in pieces so that the levels overlap
//   pairwise_alltoallv  n-1 steps, step s sends to r+s and receives from r-s
//   dissemination_barrier, gather_bytes (to rank 0), broadcast_bytes (from rank 0)
//   adasum_allreduce    recursive halving of Maleki et al. with dot products summed over each block; any n
//                       (ranks past the largest power of two are folded in first), same order as adasum_tree
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "hvd/types.h"
#include "runtime/comm/algo/links.h"

namespace hvd::detail {

inline constexpr std::size_t kPipelineBytes = 1u << 20;

using Scratch = std::vector<std::byte>;

// Where each rank's block starts in a buffer of blocks in rank order: {0, b[0], b[0] + b[1], ...}.
inline std::vector<std::size_t> block_offsets(const std::vector<std::size_t>& bytes) {
  std::vector<std::size_t> offsets(bytes.size(), 0);
  for (std::size_t p = 1; p < bytes.size(); ++p) offsets[p] = offsets[p - 1] + bytes[p - 1];
  return offsets;
}

void ring_allreduce(Links& links, void* data, std::size_t count, DataType dtype, ReduceOp op, Scratch& scratch);
void tree_allreduce(Links& links, void* data, std::size_t count, DataType dtype, ReduceOp op, Scratch& scratch);
void ring_reducescatter(Links& links, const void* in, void* out, const std::vector<std::size_t>& counts,
                        DataType dtype, ReduceOp op, Scratch& scratch);
void ring_allgatherv(Links& links, const void* in, void* out, const std::vector<std::size_t>& bytes);
void tree_broadcast(Links& links, void* data, std::size_t bytes, int root);
void pairwise_alltoallv(Links& links, const void* in, const std::vector<std::size_t>& send_bytes, void* out,
                        const std::vector<std::size_t>& recv_bytes);
void dissemination_barrier(Links& links);
std::vector<std::string> gather_bytes(Links& links, const std::string& mine);
std::string broadcast_bytes(Links& links, const std::string& from_root);
void adasum_allreduce(Links& links, void* data, std::size_t count, DataType dtype, Scratch& scratch);

}  // namespace hvd::detail
