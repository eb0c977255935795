#include "runtime/comm/mpi/mpi_datatypes.h"

#include "hvd/error.h"
#include "runtime/comm/mpi/mpi_call.h"
#include "runtime/reduce/reduce.h"

namespace hvd::detail {
namespace {

// One user op per 16-bit format and reduction, so the op never has to ask MPI which format it was given. noexcept:
// the kernels do not throw for these ops, and nothing may unwind through MPI's C frames.
template <DataType kType, ReduceOp kOp>
void reduce_half(void* in, void* inout, int* length, MPI_Datatype*) noexcept {
  reduce(inout, in, inout, static_cast<std::size_t>(*length), kType, kOp);
}

template <DataType kType>
void create_ops(MPI_Op (&ops)[4]) {
  MPI_Op_create(&reduce_half<kType, ReduceOp::kSum>, 1, &ops[0]);
  MPI_Op_create(&reduce_half<kType, ReduceOp::kMin>, 1, &ops[1]);
  MPI_Op_create(&reduce_half<kType, ReduceOp::kMax>, 1, &ops[2]);
  MPI_Op_create(&reduce_half<kType, ReduceOp::kProduct>, 1, &ops[3]);
}

MPI_Datatype make_half() {
  MPI_Datatype t;
  MPI_Type_contiguous(2, MPI_BYTE, &t);
  MPI_Type_commit(&t);
  return t;
}

int op_index(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum:
      return 0;
    case ReduceOp::kMin:
      return 1;
    case ReduceOp::kMax:
      return 2;
    case ReduceOp::kProduct:
      return 3;
    default:
      throw Error(ErrorKind::kUsage, std::string("MPI backend: no MPI op for ") + name_of(op));
  }
}

}  // namespace

MpiDatatypes::MpiDatatypes() : float16_(make_half()), bfloat16_(make_half()) {
  create_ops<DataType::kFloat16>(float16_ops_);
  create_ops<DataType::kBFloat16>(bfloat16_ops_);
}

MpiDatatypes::~MpiDatatypes() {
  // A program that started MPI may also have ended it before hvd's atexit shutdown: freeing then would abort.
  if (mpi_finalized()) return;
  for (auto& op : float16_ops_) MPI_Op_free(&op);
  for (auto& op : bfloat16_ops_) MPI_Op_free(&op);
  MPI_Type_free(&float16_);
  MPI_Type_free(&bfloat16_);
}

MPI_Datatype MpiDatatypes::type(DataType dtype) const {
  switch (dtype) {
    case DataType::kUInt8:
      return MPI_UINT8_T;
    case DataType::kInt8:
      return MPI_INT8_T;
    case DataType::kUInt16:
      return MPI_UINT16_T;
    case DataType::kInt16:
      return MPI_INT16_T;
    case DataType::kInt32:
      return MPI_INT32_T;
    case DataType::kInt64:
      return MPI_INT64_T;
    case DataType::kFloat16:
      return float16_;
    case DataType::kBFloat16:
      return bfloat16_;
    case DataType::kFloat32:
      return MPI_FLOAT;
    case DataType::kFloat64:
      return MPI_DOUBLE;
    case DataType::kBool:
      return MPI_C_BOOL;
  }
  throw Error(ErrorKind::kInternal, "MPI backend: unknown data type");
}

MPI_Op MpiDatatypes::op(DataType dtype, ReduceOp op) const {
  if (dtype == DataType::kFloat16) return float16_ops_[op_index(op)];
  if (dtype == DataType::kBFloat16) return bfloat16_ops_[op_index(op)];
  // hvd's bool semantics: sum and max are "or", product and min are "and".
  if (dtype == DataType::kBool) return op == ReduceOp::kSum || op == ReduceOp::kMax ? MPI_LOR : MPI_LAND;
  const MPI_Op native[4] = {MPI_SUM, MPI_MIN, MPI_MAX, MPI_PROD};  // in op_index order
  return native[op_index(op)];
}

}  // namespace hvd::detail
