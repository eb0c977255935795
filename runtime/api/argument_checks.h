// The API boundary's checks of one call's arguments (C++ api.cc and, through it, the C API): everything this
// rank alone can tell is wrong. Each throws hvd::Error naming the op, the tensor, the value and the fix, before
// the call takes a name or reaches the engine, so a bad call fails alone and the engine never sees an invalid
// value. What needs the other ranks (do the shapes agree?) stays the coordinator's.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hvd/types.h"

namespace hvd::detail {

// What the messages say before the reason: "allreduce 'grad/fc1'" (an unnamed call is "allreduce (unnamed)").
struct CallSite {
  const char* op;
  const std::string& name;
  std::string describe() const;
};

// dtype, device, shape (no negative dimension, element and byte counts that fit) and a data pointer when there
// are elements. `which` names the argument: "input", "output", "tensor".
void check_tensor(const TensorView& t, const CallSite& at, const char* which);
// The output of an out-of-place op: same device, dtype and element count as the input.
void check_output_matches(const TensorView& in, const TensorView& out, const CallSite& at);
// Allgather, alltoall, reducescatter split or concatenate the first dimension: a scalar has none.
void check_has_rows(const TensorView& t, const CallSite& at);
// A known op, allowed for the op type and dtype; finite scale factors (a scale makes no sense for bool).
void check_reduction(ReduceOp op, bool is_reducescatter, DataType dtype, double prescale, double postscale,
                     const CallSite& at);
// A broadcast root (a rank of the job) as its place in the process set's `ranks`; throws naming the set otherwise.
int root_in_set(int root, const std::vector<int>& ranks, std::int32_t set, const CallSite& at);

void check_root(int root, int size, const CallSite& at);
// Empty (equal parts, which must divide the rows), or one non-negative split per rank adding up to the rows.
void check_splits(const std::vector<std::int64_t>& splits, std::int64_t rows, int size, const CallSite& at);

}  // namespace hvd::detail
