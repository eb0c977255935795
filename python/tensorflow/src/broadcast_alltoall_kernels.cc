// HvdBroadcast (root's tensor into every rank's output) and HvdAlltoall (rows to each rank by `splits`; the output
// and the splits received are allocated once libhvd knows them).
#include <cstring>
#include <vector>

#include "tensor_bridge.h"

namespace hvd::tensorflow {
namespace {

class BroadcastOp : public tf::AsyncOpKernel {
 public:
  explicit BroadcastOp(tf::OpKernelConstruction* c) : AsyncOpKernel(c), naming_(c) {
    tf::int64 process_set = 0;
    OP_REQUIRES_OK(c, c->GetAttr("root_rank", &root_));
    OP_REQUIRES_OK(c, c->GetAttr("process_set_id", &process_set));
    process_set_ = static_cast<std::int32_t>(process_set);
  }

  void ComputeAsync(tf::OpKernelContext* context, DoneCallback done) override {
    const tf::Tensor& input = context->input(0);
    tf::Tensor* output = nullptr;
    OP_REQUIRES_OK_ASYNC(context, context->forward_input_or_allocate_output({0}, 0, input.shape(), &output), done);
    // In place on the output: the root sends what it holds, the others receive into it.
    const auto in = input.tensor_data();
    if (output->tensor_data().data() != in.data() && !in.empty()) {
      std::memcpy(const_cast<char*>(output->tensor_data().data()), in.data(), in.size());
    }
    BroadcastOptions options;
    options.root = root_;
    options.name = naming_.name();
    options.process_set = process_set_;
    finish_when_done(context, std::move(done), naming_,
                     [&] { return Handles{broadcast_async(view_of(*output), options)}; });
  }

 private:
  TensorNaming naming_;
  int root_ = 0;
  std::int32_t process_set_ = 0;
};

class AlltoallOp : public tf::AsyncOpKernel {
 public:
  explicit AlltoallOp(tf::OpKernelConstruction* c) : AsyncOpKernel(c), naming_(c) {
    tf::int64 process_set = 0;
    OP_REQUIRES_OK(c, c->GetAttr("process_set_id", &process_set));
    process_set_ = static_cast<std::int32_t>(process_set);
  }

  void ComputeAsync(tf::OpKernelContext* context, DoneCallback done) override {
    const tf::Tensor& splits = context->input(1);
    OP_REQUIRES_ASYNC(context, splits.dims() == 1,
                      absl::InvalidArgumentError("hvd.alltoall: splits must be a vector, got shape " +
                                                 splits.shape().DebugString()),
                      done);
    AlltoallOptions options;
    auto values = splits.flat<tf::int32>();
    options.splits.assign(values.data(), values.data() + values.size());
    options.name = naming_.name();
    options.process_set = process_set_;
    options.allocate = [context](DataType, const std::vector<std::int64_t>& shape) -> void* {
      tf::Tensor* output = nullptr;
      tf::Status status = context->allocate_output(0, shape_of(shape), &output);
      if (!status.ok()) throw Error(ErrorKind::kInternal, "hvd.alltoall: cannot allocate output: " + status.ToString());
      return const_cast<char*>(output->tensor_data().data());
    };
    finish_when_done(
        context, std::move(done), naming_, [&] { return Handles{alltoall_async(view_of(context->input(0)), options)}; },
        [context](const Handles& handles) {
          const auto& received = handles.front().received_splits();
          tf::Tensor* out = nullptr;
          tf::TensorShape shape({static_cast<std::int64_t>(received.size())});
          tf::Status status = context->allocate_output(1, shape, &out);
          if (!status.ok()) throw Error(ErrorKind::kInternal, "hvd.alltoall: " + status.ToString());
          auto flat = out->flat<tf::int32>();
          for (std::size_t i = 0; i < received.size(); ++i) flat(i) = static_cast<tf::int32>(received[i]);
        });
  }

 private:
  TensorNaming naming_;
  std::int32_t process_set_ = 0;
};

REGISTER_KERNEL_BUILDER(Name("HvdBroadcast").Device(tf::DEVICE_CPU), BroadcastOp);
REGISTER_KERNEL_BUILDER(Name("HvdAlltoall").Device(tf::DEVICE_CPU).HostMemory("splits").HostMemory("received_splits"),
                        AlltoallOp);

}  // namespace
}  // namespace hvd::tensorflow
