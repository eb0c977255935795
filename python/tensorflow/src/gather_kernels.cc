// HvdAllgather, HvdReducescatter and their grouped forms. Their outputs' first dimension is known only once libhvd
// negotiated the op, so libhvd allocates them through TensorFlow (OutputAllocator -> allocate_output) on its engine
// thread, as Horovod's kernels do. A grouped form is one op per tensor, named name.i, done when all are.
#include <vector>

#include "tensor_bridge.h"

namespace hvd::tensorflow {
namespace {

// Allocates output `index` of the kernel when libhvd knows its shape.
OutputAllocator output_allocator(tf::OpKernelContext* context, int index) {
  return [context, index](DataType, const std::vector<std::int64_t>& shape) -> void* {
    tf::Tensor* output = nullptr;
    tf::Status status = context->allocate_output(index, shape_of(shape), &output);
    if (!status.ok()) throw Error(ErrorKind::kInternal, "hvd.tensorflow: cannot allocate output: " + status.ToString());
    return const_cast<char*>(output->tensor_data().data());
  };
}

void read_process_set(tf::OpKernelConstruction* c, std::int32_t& process_set) {
  tf::int64 id = 0;
  OP_REQUIRES_OK(c, c->GetAttr("process_set_id", &id));
  process_set = static_cast<std::int32_t>(id);
}

class AllgatherOp : public tf::AsyncOpKernel {
 public:
  explicit AllgatherOp(tf::OpKernelConstruction* c) : AsyncOpKernel(c), naming_(c) {
    read_process_set(c, process_set_);
  }

  void ComputeAsync(tf::OpKernelContext* context, DoneCallback done) override {
    finish_when_done(context, std::move(done), naming_, [&] {
      Handles handles;
      for (int i = 0; i < context->num_inputs(); ++i) {
        AllgatherOptions options;
        options.name = naming_.name(static_cast<std::size_t>(i));
        options.process_set = process_set_;
        options.allocate = output_allocator(context, i);
        handles.push_back(allgather_async(view_of(context->input(i)), options));
      }
      return handles;
    });
  }

 private:
  TensorNaming naming_;
  std::int32_t process_set_ = 0;
};

class ReducescatterOp : public tf::AsyncOpKernel {
 public:
  explicit ReducescatterOp(tf::OpKernelConstruction* c) : AsyncOpKernel(c), naming_(c) {
    read_process_set(c, process_set_);
    int op = 0;
    OP_REQUIRES_OK(c, c->GetAttr("reduce_op", &op));
    op_ = static_cast<ReduceOp>(op);
  }

  void ComputeAsync(tf::OpKernelContext* context, DoneCallback done) override {
    finish_when_done(context, std::move(done), naming_, [&] {
      Handles handles;
      for (int i = 0; i < context->num_inputs(); ++i) {
        ReducescatterOptions options;
        options.op = op_;
        options.name = naming_.name(static_cast<std::size_t>(i));
        options.process_set = process_set_;
        options.allocate = output_allocator(context, i);
        handles.push_back(reducescatter_async(view_of(context->input(i)), options));
      }
      return handles;
    });
  }

 private:
  TensorNaming naming_;
  std::int32_t process_set_ = 0;
  ReduceOp op_ = ReduceOp::kSum;
};

REGISTER_KERNEL_BUILDER(Name("HvdAllgather").Device(tf::DEVICE_CPU), AllgatherOp);
REGISTER_KERNEL_BUILDER(Name("HvdGroupedAllgather").Device(tf::DEVICE_CPU), AllgatherOp);
REGISTER_KERNEL_BUILDER(Name("HvdReducescatter").Device(tf::DEVICE_CPU), ReducescatterOp);
REGISTER_KERNEL_BUILDER(Name("HvdGroupedReducescatter").Device(tf::DEVICE_CPU), ReducescatterOp);

}  // namespace
}  // namespace hvd::tensorflow
