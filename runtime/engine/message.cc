#include "runtime/engine/message.h"

#include <array>
#include <string_view>

namespace hvd::detail {

namespace {

// In the enum's order (the static_asserts hold the two together), as runtime/reduce/types.cc names dtypes.
constexpr std::array<std::string_view, 7> kOpTypeNames{"allreduce",     "allgather", "broadcast", "alltoall",
                                                       "reducescatter", "barrier",   "join"};
static_assert(kOpTypeNames[static_cast<int>(OpType::kReducescatter)] == "reducescatter");
static_assert(kOpTypeNames.size() == static_cast<std::size_t>(OpType::kJoin) + 1);

}  // namespace

const char* name_of(OpType type) {
  const auto i = static_cast<std::size_t>(type);
  return i < kOpTypeNames.size() ? kOpTypeNames[i].data() : "unknown";
}

bool is_reduction(OpType type) { return type == OpType::kAllreduce || type == OpType::kReducescatter; }

std::int64_t num_elements(const Shape& shape) {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

std::string shape_string(const Shape& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

}  // namespace hvd::detail
