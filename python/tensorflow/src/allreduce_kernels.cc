// HvdAllreduce and HvdGroupedAllreduce: asynchronous kernels whose outputs reuse their inputs' buffers when TensorFlow
// allows (forward_input_or_allocate_output), reduced by libhvd in place or from input to output.
#include <vector>

#include "tensor_bridge.h"

namespace hvd::tensorflow {
namespace {

void read_reduce_attrs(tf::OpKernelConstruction* c, AllreduceOptions& o) {
  int op = 0;
  float prescale = 1.0f, postscale = 1.0f;
  tf::int64 process_set = 0;
  OP_REQUIRES_OK(c, c->GetAttr("reduce_op", &op));
  OP_REQUIRES_OK(c, c->GetAttr("prescale_factor", &prescale));
  OP_REQUIRES_OK(c, c->GetAttr("postscale_factor", &postscale));
  OP_REQUIRES_OK(c, c->GetAttr("process_set_id", &process_set));
  o.op = static_cast<ReduceOp>(op);
  o.prescale_factor = prescale;
  o.postscale_factor = postscale;
  o.process_set = static_cast<std::int32_t>(process_set);
}

AllreduceOptions allreduce_options(tf::OpKernelConstruction* c) {
  AllreduceOptions o;
  read_reduce_attrs(c, o);
  return o;
}

class AllreduceOp : public tf::AsyncOpKernel {
 public:
  explicit AllreduceOp(tf::OpKernelConstruction* c) : AsyncOpKernel(c), options_(allreduce_options(c)), naming_(c) {}

  void ComputeAsync(tf::OpKernelContext* context, DoneCallback done) override {
    const tf::Tensor& input = context->input(0);
    tf::Tensor* output = nullptr;
    OP_REQUIRES_OK_ASYNC(context, context->forward_input_or_allocate_output({0}, 0, input.shape(), &output), done);
    AllreduceOptions options = options_;
    options.name = naming_.name();
    finish_when_done(context, std::move(done), naming_,
                     [&] { return Handles{allreduce_async(view_of(input), view_of(*output), options)}; });
  }

 private:
  AllreduceOptions options_;
  TensorNaming naming_;
};

class GroupedAllreduceOp : public tf::AsyncOpKernel {
 public:
  explicit GroupedAllreduceOp(tf::OpKernelConstruction* c)
      : AsyncOpKernel(c), options_(allreduce_options(c)), naming_(c) {}

  void ComputeAsync(tf::OpKernelContext* context, DoneCallback done) override {
    std::vector<TensorView> inputs, outputs;
    for (int i = 0; i < context->num_inputs(); ++i) {
      const tf::Tensor& input = context->input(i);
      tf::Tensor* output = nullptr;
      OP_REQUIRES_OK_ASYNC(context, context->forward_input_or_allocate_output({i}, i, input.shape(), &output), done);
      inputs.push_back(view_of(input));
      outputs.push_back(view_of(*output));
    }
    AllreduceOptions options = options_;
    options.name = naming_.name();
    finish_when_done(context, std::move(done), naming_,
                     [&] { return Handles{grouped_allreduce_async(inputs, outputs, options)}; });
  }

 private:
  AllreduceOptions options_;
  TensorNaming naming_;
};

REGISTER_KERNEL_BUILDER(Name("HvdAllreduce").Device(tf::DEVICE_CPU), AllreduceOp);
REGISTER_KERNEL_BUILDER(Name("HvdGroupedAllreduce").Device(tf::DEVICE_CPU), GroupedAllreduceOp);

}  // namespace
}  // namespace hvd::tensorflow
