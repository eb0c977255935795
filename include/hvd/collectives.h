// The collectives. Each has an asynchronous form returning a Handle and a blocking form; the blocking forms of
// the ops that allocate their output (allgather, alltoall, reducescatter) return it as an Output.
// Arguments are checked on the calling rank first (dtype, op, device, shape, data pointer, root, splits): a bad
// call throws hvd::Error at once, takes no name and leaves the job running. All ranks must call the same ops with the
// same names; unnamed ops are named from call order, so they must also be called in the same order. Ops whose output
// size is known only after negotiation (allgather, alltoall, reducescatter) allocate through an OutputAllocator; by
// default the handle owns the output.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "hvd/export.h"
#include "hvd/handle.h"
#include "hvd/types.h"

namespace hvd {

struct AllreduceOptions {
  ReduceOp op = ReduceOp::kAverage;
  double prescale_factor = 1.0;   // applied to each input before the reduction
  double postscale_factor = 1.0;  // applied to the result
  std::string name;
  std::int32_t process_set = 0;  // the id of the process set (hvd/process_set.h) among whose ranks it runs; 0: all
};

struct AllgatherOptions {
  std::string name;
  OutputAllocator allocate;  // empty: the handle owns the output
  std::int32_t process_set = 0;  // the id of the process set (hvd/process_set.h) among whose ranks it runs; 0: all
};

struct BroadcastOptions {
  int root = 0;  // a rank of the job; with a process set, one of its ranks
  std::string name;
  std::int32_t process_set = 0;  // the id of the process set (hvd/process_set.h) among whose ranks it runs; 0: all
};

struct AlltoallOptions {
  std::vector<std::int64_t> splits;  // rows of the first dimension sent to each rank; empty: equal parts
  std::string name;
  OutputAllocator allocate;
  std::int32_t process_set = 0;  // the id of the process set (hvd/process_set.h) among whose ranks it runs; 0: all
};

struct ReducescatterOptions {
  ReduceOp op = ReduceOp::kAverage;  // any op but kAdasum
  std::string name;
  OutputAllocator allocate;
  std::int32_t process_set = 0;  // the id of the process set (hvd/process_set.h) among whose ranks it runs; 0: all
};

// `output` may alias `input` (in place). Shapes and dtypes must match.
HVD_API Handle allreduce_async(const TensorView& input, const TensorView& output, const AllreduceOptions& options = {});
HVD_API void allreduce(const TensorView& input, const TensorView& output, const AllreduceOptions& options = {});

// A training step's allreduces in one call: tensor i is its own op named names[i] (cached and fused exactly like
// separate allreduce_async calls) with `options` otherwise; one handle each. One enqueue for the step, then the
// calling thread runs the step's collective itself when the engine is idle (no thread hand-off): when the other
// ranks are ready too the handles are done on return; else it returns once they have cast their vote, leaving the
// rest to the engine's thread.
HVD_API std::vector<Handle> allreduce_batch_async(const std::vector<TensorView>& inputs,
                                                  const std::vector<TensorView>& outputs,
                                                  const std::vector<std::string>& names,
                                                  const AllreduceOptions& options = {});
// Negotiated and fused as one unit: all or none become ready together.
HVD_API Handle grouped_allreduce_async(const std::vector<TensorView>& inputs, const std::vector<TensorView>& outputs,
                                       const AllreduceOptions& options = {});
HVD_API void grouped_allreduce(const std::vector<TensorView>& inputs, const std::vector<TensorView>& outputs,
                               const AllreduceOptions& options = {});

// What the blocking allgather, alltoall and reducescatter return. Without options.allocate the Output owns the
// memory (freed with the last copy of it); with an allocator the memory is the allocator's and this is a view.
class HVD_API Output {
 public:
  explicit Output(Handle finished) : handle_(std::move(finished)) {}
  const TensorView& tensor() const { return handle_.output(); }
  const std::vector<std::int64_t>& received_splits() const { return handle_.received_splits(); }  // alltoall

 private:
  Handle handle_;  // finished; holds the output the engine allocated
};

// Concatenates along the first dimension, which may differ per rank.
HVD_API Handle allgather_async(const TensorView& input, const AllgatherOptions& options = {});
HVD_API Output allgather(const TensorView& input, const AllgatherOptions& options = {});

// In place: on the root `tensor` is sent, elsewhere it is overwritten.
HVD_API Handle broadcast_async(const TensorView& tensor, const BroadcastOptions& options = {});
HVD_API void broadcast(const TensorView& tensor, const BroadcastOptions& options = {});

// Rows of the first dimension go to each rank (of the process set, in its order) by options.splits; the output holds the rows received, in rank order.
HVD_API Handle alltoall_async(const TensorView& input, const AlltoallOptions& options = {});
HVD_API Output alltoall(const TensorView& input, const AlltoallOptions& options = {});

// The first dimension is split across ranks (the first ranks get one more row when it does not divide).
HVD_API Handle reducescatter_async(const TensorView& input, const ReducescatterOptions& options = {});
HVD_API Output reducescatter(const TensorView& input, const ReducescatterOptions& options = {});

HVD_API void barrier();
HVD_API void barrier(std::int32_t process_set);  // among a process set's ranks

// This rank has no more data: until every rank has joined, its part in other ranks' allreduces is zeros.
// Returns the last rank to join.
HVD_API int join();

}  // namespace hvd
