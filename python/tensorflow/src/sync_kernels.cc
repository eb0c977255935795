// HvdJoin and HvdBarrier: synchronous kernels, since libhvd's join and barrier block until every rank arrives (they
// hold one TensorFlow thread meanwhile, as a blocking op does); and the job's shape as scalars (HvdSize, ...).
#include <functional>
#include <string>

#include "hvd/hvd.h"
#include "tensor_bridge.h"

namespace hvd::tensorflow {
namespace {

class JoinOp : public tf::OpKernel {
 public:
  explicit JoinOp(tf::OpKernelConstruction* c) : OpKernel(c) {}

  void Compute(tf::OpKernelContext* context) override {
    tf::Tensor* output = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, tf::TensorShape({}), &output));
    try {
      output->scalar<tf::int32>()() = join();
    } catch (const Error& e) {
      context->SetStatus(status_of(e));
    }
  }
};

class BarrierOp : public tf::OpKernel {
 public:
  explicit BarrierOp(tf::OpKernelConstruction* c) : OpKernel(c) {
    tf::int64 id = 0;
    OP_REQUIRES_OK(c, c->GetAttr("process_set_id", &id));
    process_set_ = static_cast<std::int32_t>(id);
  }

  void Compute(tf::OpKernelContext* context) override {
    try {
      barrier(process_set_);
    } catch (const Error& e) {
      context->SetStatus(status_of(e));
    }
  }

 private:
  std::int32_t process_set_ = 0;
};

// A scalar int32 from libhvd, read when the kernel runs.
class ShapeOp : public tf::OpKernel {
 public:
  explicit ShapeOp(tf::OpKernelConstruction* c) : OpKernel(c) {
    const std::string& type = c->def().op();
    tf::int64 id = 0;
    if (type == "HvdSize" || type == "HvdProcessSetIncluded") OP_REQUIRES_OK(c, c->GetAttr("process_set_id", &id));
    const auto set = static_cast<std::int32_t>(id);
    if (type == "HvdSize") {
      read_ = [set] { return set == 0 ? size() : static_cast<int>(process_set(set).ranks().size()); };
    }
    if (type == "HvdLocalSize") read_ = [] { return local_size(); };
    if (type == "HvdRank") read_ = [] { return rank(); };
    if (type == "HvdLocalRank") read_ = [] { return local_rank(); };
    if (type == "HvdProcessSetIncluded") read_ = [set] { return process_set(set).rank() >= 0 ? 1 : 0; };
  }

  void Compute(tf::OpKernelContext* context) override {
    tf::Tensor* output = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, tf::TensorShape({}), &output));
    try {
      output->scalar<tf::int32>()() = read_();
    } catch (const Error& e) {
      context->SetStatus(status_of(e));
    }
  }

 private:
  std::function<int()> read_;
};

REGISTER_KERNEL_BUILDER(Name("HvdJoin").Device(tf::DEVICE_CPU), JoinOp);
REGISTER_KERNEL_BUILDER(Name("HvdBarrier").Device(tf::DEVICE_CPU), BarrierOp);
REGISTER_KERNEL_BUILDER(Name("HvdSize").Device(tf::DEVICE_CPU).HostMemory("size"), ShapeOp);
REGISTER_KERNEL_BUILDER(Name("HvdLocalSize").Device(tf::DEVICE_CPU).HostMemory("local_size"), ShapeOp);
REGISTER_KERNEL_BUILDER(Name("HvdRank").Device(tf::DEVICE_CPU).HostMemory("rank"), ShapeOp);
REGISTER_KERNEL_BUILDER(Name("HvdLocalRank").Device(tf::DEVICE_CPU).HostMemory("local_rank"), ShapeOp);
REGISTER_KERNEL_BUILDER(Name("HvdProcessSetIncluded").Device(tf::DEVICE_CPU).HostMemory("included"), ShapeOp);

}  // namespace
}  // namespace hvd::tensorflow
