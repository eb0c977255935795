// hvd data types and reduce ops in MPI terms. MPI has no float16/bfloat16: they travel as 2-byte types of their
// own, reduced by user ops that call hvd's kernels (the same arithmetic as the built-in backend). The types and
// ops belong to this object and are freed before MPI_Finalize (or not at all if the program finalized first).
#pragma once

#include <mpi.h>

#include "hvd/types.h"

namespace hvd::detail {

class MpiDatatypes {
 public:
  MpiDatatypes();
  ~MpiDatatypes();
  MpiDatatypes(const MpiDatatypes&) = delete;
  MpiDatatypes& operator=(const MpiDatatypes&) = delete;

  MPI_Datatype type(DataType dtype) const;
  // op: kSum, kMin, kMax or kProduct (Average and scaling are the engine's).
  MPI_Op op(DataType dtype, ReduceOp op) const;

 private:
  MPI_Datatype float16_ = MPI_DATATYPE_NULL;
  MPI_Datatype bfloat16_ = MPI_DATATYPE_NULL;
  // sum, min, max, product
  MPI_Op float16_ops_[4] = {MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL};
  MPI_Op bfloat16_ops_[4] = {MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL};
};

}  // namespace hvd::detail
