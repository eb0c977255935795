#include "runtime/comm/mpi/mpi_datatypes.h"

#include <cstring>

#include "hvd/error.h"
#include "runtime/reduce/reduce.h"

namespace hvd::detail {
namespace {

constexpr const char* kFloat16Name = "hvd_float16";
constexpr const char* kBFloat16Name = "hvd_bfloat16";

// MPI user ops see only the MPI datatype; the name set at creation says which 16-bit format it is.
DataType half_type_of(MPI_Datatype type) {
  char name[MPI_MAX_OBJECT_NAME];
  int length = 0;
  MPI_Type_get_name(type, name, &length);
  return std::strcmp(name, kBFloat16Name) == 0 ? DataType::kBFloat16 : DataType::kFloat16;
}

template <ReduceOp kOp>
void reduce_half(void* in, void* inout, int* length, MPI_Datatype* type) {
  reduce(inout, in, inout, static_cast<std::size_t>(*length), half_type_of(*type), kOp);
}

MPI_Datatype make_half(const char* name) {
  MPI_Datatype t;
  MPI_Type_contiguous(2, MPI_BYTE, &t);
  MPI_Type_set_name(t, name);
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
      throw Error(std::string("MPI backend: no MPI op for ") + op_name(op));
  }
}

}  // namespace

MpiDatatypes::MpiDatatypes() : float16_(make_half(kFloat16Name)), bfloat16_(make_half(kBFloat16Name)) {
  MPI_Op_create(&reduce_half<ReduceOp::kSum>, 1, &half_ops_[0]);
  MPI_Op_create(&reduce_half<ReduceOp::kMin>, 1, &half_ops_[1]);
  MPI_Op_create(&reduce_half<ReduceOp::kMax>, 1, &half_ops_[2]);
  MPI_Op_create(&reduce_half<ReduceOp::kProduct>, 1, &half_ops_[3]);
}

MpiDatatypes::~MpiDatatypes() {
  for (auto& op : half_ops_) MPI_Op_free(&op);
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
  throw Error("MPI backend: unknown data type");
}

MPI_Op MpiDatatypes::op(DataType dtype, ReduceOp op) const {
  if (dtype == DataType::kFloat16 || dtype == DataType::kBFloat16) return half_ops_[op_index(op)];
  // hvd's bool semantics: sum and max are "or", product and min are "and".
  if (dtype == DataType::kBool) return op == ReduceOp::kSum || op == ReduceOp::kMax ? MPI_LOR : MPI_LAND;
  switch (op_index(op)) {
    case 0:
      return MPI_SUM;
    case 1:
      return MPI_MIN;
    case 2:
      return MPI_MAX;
    default:
      return MPI_PROD;
  }
}

}  // namespace hvd::detail
