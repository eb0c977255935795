// The one table of dtypes and reduce ops: names and sizes, indexed by the enums' values. Every part of libhvd
// (API checks, engine, kernels, backends) asks here; an unknown value is refused the same way everywhere.
#include "hvd/types.h"

#include <array>
#include <string>
#include <string_view>

#include "hvd/error.h"
#include "runtime/reduce/types_check.h"

namespace hvd {
namespace {

struct DataTypeInfo {
  std::string_view name;
  std::size_t size;
};

// In the enum's order (the static_asserts hold the two together).
constexpr std::array<DataTypeInfo, 11> kDataTypes{{
    {"uint8", 1},
    {"int8", 1},
    {"uint16", 2},
    {"int16", 2},
    {"int32", 4},
    {"int64", 8},
    {"float16", 2},
    {"bfloat16", 2},
    {"float32", 4},
    {"float64", 8},
    {"bool", 1},
}};
static_assert(kDataTypes[static_cast<int>(DataType::kFloat16)].name == "float16");
static_assert(kDataTypes[static_cast<int>(DataType::kBool)].name == "bool");
static_assert(kDataTypes.size() == static_cast<std::size_t>(DataType::kBool) + 1);

constexpr std::array<std::string_view, 6> kReduceOps{"sum", "average", "min", "max", "product", "adasum"};
static_assert(kReduceOps[static_cast<int>(ReduceOp::kAdasum)] == "adasum");

}  // namespace

std::size_t size_of(DataType dtype) {
  if (!detail::is_valid(dtype)) {
    throw Error(ErrorKind::kUsage,
                "unknown dtype " + std::to_string(static_cast<int>(dtype)) + "; use one of hvd::DataType's values");
  }
  return kDataTypes[static_cast<std::size_t>(dtype)].size;
}

// Names go into error messages, so an unknown value gets a name instead of a second error.
const char* name_of(DataType dtype) {
  return detail::is_valid(dtype) ? kDataTypes[static_cast<std::size_t>(dtype)].name.data() : "unknown dtype";
}

const char* name_of(ReduceOp op) {
  return detail::is_valid(op) ? kReduceOps[static_cast<std::size_t>(op)].data() : "unknown op";
}

namespace detail {

bool is_valid(DataType dtype) { return static_cast<std::size_t>(dtype) < kDataTypes.size(); }
bool is_valid(ReduceOp op) { return static_cast<std::size_t>(op) < kReduceOps.size(); }

}  // namespace detail
}  // namespace hvd
