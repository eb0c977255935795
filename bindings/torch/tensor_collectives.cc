// Tensor collectives: each wraps the runtime's op over views of the tensors and keeps them alive in the handle.
// Ops whose output shape is known only after negotiation allocate a torch tensor from the background thread.
#include <string>

#include "hvd/torch.h"

namespace hvd::torch {
namespace {

// An allocator that creates the output as a torch tensor like `like` and remembers it in `out`.
OutputAllocator allocator_into(const std::shared_ptr<Tensor>& out, const Tensor& like) {
  return [out, options = like.options()](DataType dtype, const std::vector<std::int64_t>& shape) {
    *out = empty_for(dtype, shape, options);
    return out->data_ptr();
  };
}

// Starts `start` on a view of `tensor` with the output allocated as a torch tensor like `tensor` once its shape is
// negotiated; the handle keeps the input alive and yields that output.
template <class Options>
TensorHandle with_allocated_output(const char* op, Handle (*start)(const TensorView&, const Options&),
                                   const Tensor& tensor, const Options& options) {
  auto out = std::make_shared<Tensor>();
  Options with_output = options;
  with_output.allocate = allocator_into(out, tensor);
  auto handle = start(view_of(tensor, op, options.name), with_output);
  return TensorHandle(std::move(handle), {tensor}, std::move(out));
}

// The handle of an op that writes `tensor` in place: it yields `tensor` itself.
TensorHandle in_place(Handle handle, const Tensor& tensor) {
  return TensorHandle(std::move(handle), {}, std::make_shared<Tensor>(tensor));
}

}  // namespace

TensorHandle allreduce_async(const Tensor& tensor, const AllreduceOptions& options) {
  auto out = std::make_shared<Tensor>(::torch::empty_like(tensor, ::torch::MemoryFormat::Contiguous));
  auto handle = hvd::allreduce_async(view_of(tensor, "allreduce", options.name),
                                     view_of(*out, "allreduce", options.name), options);
  return TensorHandle(std::move(handle), {tensor}, std::move(out));
}

TensorHandle allreduce_async_(Tensor& tensor, const AllreduceOptions& options) {
  auto view = view_of(tensor, "allreduce", options.name);
  return in_place(hvd::allreduce_async(view, view, options), tensor);
}

// The blocking forms hand the op to the calling thread, which runs the engine's cycle itself while it waits
// (hvd::allreduce): no wake-up of the engine's thread, no handle for the tensors.
Tensor allreduce(const Tensor& tensor, const AllreduceOptions& options) {
  Tensor out = ::torch::empty_like(tensor, ::torch::MemoryFormat::Contiguous);
  hvd::allreduce(view_of(tensor, "allreduce", options.name), view_of(out, "allreduce", options.name), options);
  return out;
}

void allreduce_(Tensor& tensor, const AllreduceOptions& options) {
  const auto view = view_of(tensor, "allreduce", options.name);
  hvd::allreduce(view, view, options);
}

TensorHandle allgather_async(const Tensor& tensor, const AllgatherOptions& options) {
  return with_allocated_output("allgather", &hvd::allgather_async, tensor, options);
}

Tensor allgather(const Tensor& tensor, const AllgatherOptions& options) {
  return allgather_async(tensor, options).wait();
}

TensorHandle broadcast_async(const Tensor& tensor, const BroadcastOptions& options) {
  Tensor copy = tensor.clone(::torch::MemoryFormat::Contiguous);
  return broadcast_async_(copy, options);
}

TensorHandle broadcast_async_(Tensor& tensor, const BroadcastOptions& options) {
  return in_place(hvd::broadcast_async(view_of(tensor, "broadcast", options.name), options), tensor);
}

Tensor broadcast(const Tensor& tensor, const BroadcastOptions& options) {
  return broadcast_async(tensor, options).wait();
}

void broadcast_(Tensor& tensor, const BroadcastOptions& options) { broadcast_async_(tensor, options).wait(); }

TensorHandle alltoall_async(const Tensor& tensor, const AlltoallOptions& options) {
  return with_allocated_output("alltoall", &hvd::alltoall_async, tensor, options);
}

std::pair<Tensor, std::vector<std::int64_t>> alltoall(const Tensor& tensor, const AlltoallOptions& options) {
  auto handle = alltoall_async(tensor, options);
  Tensor out = handle.wait();
  return {out, handle.received_splits()};
}

TensorHandle reducescatter_async(const Tensor& tensor, const ReducescatterOptions& options) {
  return with_allocated_output("reducescatter", &hvd::reducescatter_async, tensor, options);
}

Tensor reducescatter(const Tensor& tensor, const ReducescatterOptions& options) {
  return reducescatter_async(tensor, options).wait();
}

}  // namespace hvd::torch
