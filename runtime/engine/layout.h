// How a negotiated Response divides its tensors' first dimension among the ranks: the sizes every executor (the
// CPU one and the GPU backend) must derive identically, or ranks would move different byte counts.
//   reducescatter: rank r gets rows_of(dim0, r, size) rows starting at first_row (the first ranks get one more
//                  when the rows do not divide evenly);
//   allgather:     rank r contributes rank_rows[r] rows; the output stacks them in rank order;
//   alltoall:      splits is size x size, row q = what rank q sends to each rank.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "runtime/engine/message.h"

namespace hvd::detail {

Shape tail(const Shape& shape);  // the shape without its first dimension
std::int64_t rows_of(std::int64_t dim0, int rank, int size);
std::int64_t first_row(std::int64_t dim0, int rank, int size);

struct AllgatherLayout {
  std::vector<std::size_t> bytes;  // per rank
  Shape output_shape;              // every rank's rows stacked
  bool empty = false;              // nothing moves
};
AllgatherLayout allgather_layout(const Response& r, int size);

struct AlltoallLayout {
  std::vector<std::size_t> send_bytes, recv_bytes;  // per peer, from this rank's point of view
  std::vector<std::int64_t> received_rows;          // per peer: the handle's received_splits
  Shape output_shape;
  bool empty = false;  // no rank moves anything
};
AlltoallLayout alltoall_layout(const Response& r, int rank, int size);

}  // namespace hvd::detail
