// Runs one Response on this rank through the Communicator and completes the handles of its tensors. Every rank
// runs the same responses in the same order, so the communicator calls line up. A rank that has joined, or whose
// output allocator failed, still takes part (zeros in, a scratch buffer out) so the others are not left waiting.
// A fused allreduce reduces the tensors' own output buffers (Communicator::allreduce_buffers); fusion and
// scratch buffers are allocated once and grown, never shrunk: first-touching pages is slow here.
#pragma once

#include <cstdint>
#include <exception>
#include <optional>
#include <vector>

#include "runtime/comm/communicator.h"
#include "runtime/engine/message.h"
#include "runtime/engine/tensor_queue.h"

namespace hvd::detail {

// Thrown by Executor::execute when the communicator failed: the data plane is unusable and the engine stops.
struct DataPlaneBroken {
  std::exception_ptr error;
};

class Executor {
 public:
  Executor(Communicator& comm, TensorQueue& queue);
  void execute(const Response& response);

 private:
  using Entries = std::vector<std::optional<TensorEntry>>;
  struct Outcome {
    std::exception_ptr error;  // this rank's local failure (allocator), reported on its handles only
  };
  struct ScatterLayout {
    std::vector<std::int64_t> row_elems;  // per tensor: elements in one row
    std::vector<std::size_t> counts;      // per rank: elements it receives
    std::size_t total = 0;                // elements of all tensors
  };
  void run(const Response& r, Entries& es, Outcome& out);  // the op of r.type
  void allreduce(const Response& r, Entries& es, Outcome& out);
  void reduce_in_place(const Response& r, void* data, std::size_t n);
  void* contiguous_span(const Response& r, const Entries& es) const;
  void allreduce_each_buffer(const Response& r, Entries& es);
  ScatterLayout scatter_layout(const Response& r) const;
  const void* pack_for_scatter(const Response& r, const Entries& es, const ScatterLayout& l);
  void adasum(const Response& r, Entries& es, Outcome& out);
  void reducescatter(const Response& r, Entries& es, Outcome& out);
  void allgather(const Response& r, Entries& es, Outcome& out);
  void broadcast(const Response& r, Entries& es, Outcome& out);
  void alltoall(const Response& r, Entries& es, Outcome& out);

  void* output_for(TensorEntry* e, DataType dtype, const Shape& shape, Outcome& out,
                   std::vector<std::uint8_t>& fallback);
  std::uint8_t* fusion(std::size_t bytes);
  std::uint8_t* scratch(std::size_t bytes);
  std::uint8_t* zeros(std::size_t bytes);
  template <typename F>
  void data_plane(F&& f);

  Communicator& comm_;
  TensorQueue& queue_;
  int rank_, size_;
  std::vector<std::uint8_t> fusion_;    // packed inputs of fused reducescatters
  Entries entries_;                     // the response being executed, reused
  std::vector<MutableBuffer> buffers_;  // the tensors of a fused allreduce
  std::vector<std::uint8_t> scratch_;   // fused reducescatter outputs, joined ranks' outputs
  std::vector<std::uint8_t> zeros_;     // joined ranks' inputs
};

}  // namespace hvd::detail
