// The engine's message helpers (runtime/engine/message.h): op names, reductions, shapes.
#include <doctest/doctest.h>

#include <string>

#include "runtime/engine/message.h"

using namespace hvd::detail;

TEST_CASE("message: every op type has its name; a value outside the enum reads as unknown") {
  CHECK(std::string(name_of(OpType::kAllreduce)) == "allreduce");
  CHECK(std::string(name_of(OpType::kAllgather)) == "allgather");
  CHECK(std::string(name_of(OpType::kBroadcast)) == "broadcast");
  CHECK(std::string(name_of(OpType::kAlltoall)) == "alltoall");
  CHECK(std::string(name_of(OpType::kReducescatter)) == "reducescatter");
  CHECK(std::string(name_of(OpType::kBarrier)) == "barrier");
  CHECK(std::string(name_of(OpType::kJoin)) == "join");
  CHECK(std::string(name_of(static_cast<OpType>(7))) == "unknown");
  CHECK(is_reduction(OpType::kReducescatter));
  CHECK_FALSE(is_reduction(OpType::kAllgather));
  CHECK(num_elements({2, 3, 4}) == 24);
  CHECK(shape_string({2, 3}) == "[2, 3]");
}
