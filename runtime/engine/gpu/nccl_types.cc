#include "runtime/engine/gpu/nccl_types.h"

#include <cstdint>

#include "hvd/error.h"
#include "runtime/engine/gpu/cuda_error.h"
#include "runtime/reduce/half.h"

namespace hvd::detail {

ncclDataType_t nccl_type(DataType dtype) {
  switch (dtype) {
    case DataType::kUInt8:
    case DataType::kBool:
      return ncclUint8;
    case DataType::kInt8:
      return ncclInt8;
    case DataType::kInt32:
      return ncclInt32;
    case DataType::kInt64:
      return ncclInt64;
    case DataType::kFloat16:
      return ncclFloat16;
    case DataType::kBFloat16:
      return ncclBfloat16;
    case DataType::kFloat32:
      return ncclFloat32;
    case DataType::kFloat64:
      return ncclFloat64;
    case DataType::kUInt16:
    case DataType::kInt16:
      break;
  }
  throw Error(ErrorKind::kUsage,
              std::string("NCCL cannot reduce ") + name_of(dtype) + "; cast the tensor to int32 first");
}

ReductionOp::ReductionOp(const GpuReducePlan& plan, DataType dtype, ncclComm_t comm, const std::string& where) {
  switch (plan.op) {
    case GpuReduction::kSum:
      op_ = ncclSum;
      return;
    case GpuReduction::kAverage:
      op_ = ncclAvg;
      return;
    case GpuReduction::kMin:
      op_ = ncclMin;
      return;
    case GpuReduction::kMax:
      op_ = ncclMax;
      return;
    case GpuReduction::kProduct:
      op_ = ncclProd;
      return;
    case GpuReduction::kPreMulSum:
      break;
  }
  // The scalar has the tensor's own type; NCCL copies it at creation (host immediate).
  float f = static_cast<float>(plan.factor);
  double d = plan.factor;
  std::uint16_t h = dtype == DataType::kFloat16 ? fp16::float_to_half(f) : fp16::float_to_bfloat16(f);
  void* scalar = dtype == DataType::kFloat64   ? static_cast<void*>(&d)
                 : dtype == DataType::kFloat32 ? static_cast<void*>(&f)
                                               : static_cast<void*>(&h);
  check_nccl(ncclRedOpCreatePreMulSum(&op_, scalar, nccl_type(dtype), ncclScalarHostImmediate, comm),
             "ncclRedOpCreatePreMulSum", comm, where);
  comm_ = comm;
}

ReductionOp::~ReductionOp() {
  if (comm_) ncclRedOpDestroy(op_, comm_);
}

}  // namespace hvd::detail
