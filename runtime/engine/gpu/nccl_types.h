// hvd's dtypes and reduction plans in NCCL's terms. A reduction op that carries a scale factor (PreMulSum) is an
// NCCL object tied to one communicator: ReductionOp owns it and destroys it once the calls using it are enqueued.
#pragma once

#include <nccl.h>

#include <string>

#include "hvd/types.h"
#include "runtime/engine/gpu/gpu_plan.h"

namespace hvd::detail {

// For reductions; bool travels as uint8 (0/1). gpu_support_error() has refused int16/uint16 before this.
ncclDataType_t nccl_type(DataType dtype);

class ReductionOp {
 public:
  ReductionOp(const GpuReducePlan& plan, DataType dtype, ncclComm_t comm, const std::string& where);
  ~ReductionOp();
  ReductionOp(const ReductionOp&) = delete;
  ReductionOp& operator=(const ReductionOp&) = delete;
  ncclRedOp_t get() const { return op_; }

 private:
  ncclRedOp_t op_ = ncclSum;
  ncclComm_t comm_ = nullptr;  // set only when op_ was created (PreMulSum)
};

}  // namespace hvd::detail
