#include "runtime/engine/gpu/gpu_plan.h"

#include "runtime/reduce/reduce.h"

namespace hvd::detail {
std::string gpu_support_error(const Response& r) {
  if (!is_reduction(r.type)) return "";  // data movement works on bytes: every dtype
  if (r.reduce_op == ReduceOp::kAdasum) return "adasum is not available for GPU tensors; copy the tensor to the CPU";
  if (r.dtype == DataType::kInt16 || r.dtype == DataType::kUInt16) {
    return std::string("NCCL cannot reduce ") + name_of(r.dtype) + "; cast the tensor to int32 first";
  }
  const bool scaled = r.prescale != 1.0 || r.postscale != 1.0;
  if (!scaled) return "";
  if (r.reduce_op != ReduceOp::kSum && r.reduce_op != ReduceOp::kAverage) {
    return std::string("scale factors on GPU tensors work with sum and average only, not ") + name_of(r.reduce_op) +
           "; scale the tensor before or after the call";
  }
  if (!is_floating(r.dtype)) {
    return std::string("scale factors on GPU tensors need a floating-point dtype, not ") + name_of(r.dtype) +
           "; scale the tensor before or after the call, or copy it to the CPU";
  }
  return "";
}

GpuReducePlan plan_gpu_reduction(const Response& r, int size) {
  GpuReducePlan plan;
  if (r.dtype == DataType::kBool) {
    // bool is a byte of 0 or 1: logical or is max, logical and is min (what the CPU path computes).
    plan.op =
        (r.reduce_op == ReduceOp::kMin || r.reduce_op == ReduceOp::kProduct) ? GpuReduction::kMin : GpuReduction::kMax;
    plan.cross_op = plan.op == GpuReduction::kMin ? ReduceOp::kMin : ReduceOp::kMax;
    return plan;
  }
  switch (r.reduce_op) {
    case ReduceOp::kMin:
      plan.op = GpuReduction::kMin, plan.cross_op = ReduceOp::kMin;
      return plan;
    case ReduceOp::kMax:
      plan.op = GpuReduction::kMax, plan.cross_op = ReduceOp::kMax;
      return plan;
    case ReduceOp::kProduct:
      plan.op = GpuReduction::kProduct, plan.cross_op = ReduceOp::kProduct;
      return plan;
    default:
      break;
  }
  const double scale = r.prescale * r.postscale;
  const bool average = r.reduce_op == ReduceOp::kAverage;
  if (scale == 1.0) {
    plan.op = average ? GpuReduction::kAverage : GpuReduction::kSum;
    return plan;
  }
  plan.op = GpuReduction::kPreMulSum;
  plan.factor = average ? scale / size : scale;
  return plan;
}

}  // namespace hvd::detail
