// What the GPU path can do, decided without CUDA or NCCL so that the coordinator (validation.cc) refuses an
// unsupported GPU request on every rank alike, and so that the arithmetic is unit-testable:
//  - reductions (allreduce, reducescatter) map onto NCCL's sum/avg/min/max/prod and PreMulSum;
//  - prescale and postscale fold into one PreMulSum factor (sum: pre x post; average: pre x post / size);
//  - dtypes NCCL cannot reduce (int16, uint16) and Adasum are refused with a message that says what to do.
#pragma once

#include <string>

#include "runtime/engine/message.h"

namespace hvd::detail {

enum class GpuReduction : std::uint8_t { kSum, kAverage, kMin, kMax, kProduct, kPreMulSum };

struct GpuReducePlan {
  GpuReduction op = GpuReduction::kSum;
  double factor = 1.0;                 // kPreMulSum only: every input is multiplied by it before the sum
  ReduceOp cross_op = ReduceOp::kSum;  // the CPU step of hierarchical allreduce (the factor is applied on the GPU)
};

// "" when a GPU response of this kind can run, else the reason with what to do (no tensor name: callers prefix).
std::string gpu_support_error(const Response& r);
// The plan for a reduction response that gpu_support_error() accepted; `size` is the number of ranks reducing.
GpuReducePlan plan_gpu_reduction(const Response& r, int size);

}  // namespace hvd::detail
