// The API boundary's checks (runtime/api/argument_checks.h) and the one dtype table (runtime/reduce/types.cc).
#include "runtime/api/argument_checks.h"

#include <doctest/doctest.h>

#include <cmath>

#include "hvd/error.h"
#include "runtime/reduce/types_check.h"
#include "tests/unit/error_of.h"

using namespace hvd;
using namespace hvd::detail;

namespace {

using hvd::test::error_of;

const std::string kName = "grad/fc1";
const CallSite kAt{"allreduce", kName};

}  // namespace

TEST_CASE("dtype table: every value has a size and a name; unknown values are refused the same way") {
  CHECK(size_of(DataType::kBool) == 1);
  CHECK(size_of(DataType::kBFloat16) == 2);
  CHECK(size_of(DataType::kInt64) == 8);
  CHECK(std::string(name_of(DataType::kFloat16)) == "float16");
  CHECK(std::string(name_of(ReduceOp::kAdasum)) == "adasum");
  const auto unknown = static_cast<DataType>(99);
  CHECK_FALSE(is_valid(unknown));
  CHECK(error_of([&] { (void)size_of(unknown); }).find("unknown dtype 99") != std::string::npos);
  CHECK(std::string(name_of(unknown)) == "unknown dtype");
  CHECK_FALSE(is_valid(static_cast<ReduceOp>(6)));
  CHECK(is_valid(DataType::kBool));
}

TEST_CASE("check_tensor: dtype, device, shape, data pointer") {
  float x[4] = {};
  CHECK_NOTHROW(check_tensor({x, DataType::kFloat32, {2, 2}, {}}, kAt, "input"));
  CHECK_NOTHROW(check_tensor({nullptr, DataType::kFloat32, {0, 3}, {}}, kAt, "input"));  // empty: no pointer needed
  CHECK(error_of([&] {
          check_tensor({x, static_cast<DataType>(99), {4}, {}}, kAt, "input");
        }) ==
        "allreduce 'grad/fc1': the input's dtype 99 is not a hvd::DataType; use one of its values (kUInt8 ... kBool)");
  TensorView bad_kind{x, DataType::kFloat32, {4}, {}};
  bad_kind.device.kind = static_cast<Device::Kind>(7);
  CHECK(error_of([&] { check_tensor(bad_kind, kAt, "input"); }).find("device kind 7") != std::string::npos);
  CHECK(error_of([&] {
          check_tensor({x, DataType::kFloat32, {4}, Device::gpu(-1)}, kAt, "input");
        }).find("without a device index") != std::string::npos);
  CHECK(error_of([&] {
          check_tensor({x, DataType::kFloat32, {2, -3}, {}}, kAt, "output");
        }).find("the output has a negative dimension in [2, -3]") != std::string::npos);
  CHECK(error_of([&] {
          check_tensor({x, DataType::kFloat64, {1LL << 31, 1LL << 31}, {}}, kAt, "input");
        }).find("more elements than memory can hold") != std::string::npos);
  CHECK(error_of([&] {
          check_tensor({nullptr, DataType::kFloat32, {4}, {}}, kAt, "input");
        }).find("no data pointer but 4 elements") != std::string::npos);
  const std::string unnamed;
  CHECK(error_of([&] {
          check_tensor({nullptr, DataType::kInt8, {1}, {}}, {"broadcast", unnamed}, "tensor");
        }).rfind("broadcast (unnamed): the tensor", 0) == 0);
}

TEST_CASE("check_reduction: op values, Adasum, bool, scale factors") {
  CHECK_NOTHROW(check_reduction(ReduceOp::kMax, true, DataType::kInt32, 1, 1, kAt));
  CHECK(error_of([] {
          check_reduction(static_cast<ReduceOp>(42), false, DataType::kFloat32, 1, 1, kAt);
        }).find("reduce op 42 is not a hvd::ReduceOp") != std::string::npos);
  CHECK(error_of([] {
          check_reduction(ReduceOp::kAdasum, true, DataType::kFloat32, 1, 1, kAt);
        }).find("adasum works only with allreduce") != std::string::npos);
  CHECK(error_of([] { check_reduction(ReduceOp::kAdasum, false, DataType::kInt32, 1, 1, kAt); }).find("not int32") !=
        std::string::npos);
  CHECK(error_of([] {
          check_reduction(ReduceOp::kAverage, false, DataType::kBool, 1, 1, kAt);
        }).find("not defined for bool") != std::string::npos);
  CHECK(error_of([] {
          check_reduction(ReduceOp::kSum, false, DataType::kFloat32, NAN, 1, kAt);
        }).find("must be finite") != std::string::npos);
}

TEST_CASE("check_root and check_splits") {
  CHECK_NOTHROW(check_root(1, 2, kAt));
  CHECK(error_of([] { check_root(2, 2, kAt); }).find("root 2 is not a rank (the job has 2 ranks, 0-1)") !=
        std::string::npos);
  CHECK(error_of([] { check_root(-1, 1, kAt); }).find("(the job has 1 rank, 0)") != std::string::npos);
  CHECK_NOTHROW(check_splits({}, 6, 3, kAt));
  CHECK_NOTHROW(check_splits({0, 4, 2}, 6, 3, kAt));
  CHECK(error_of([] { check_splits({}, 5, 3, kAt); }).find("do not divide into 3 equal parts") != std::string::npos);
  CHECK(error_of([] { check_splits({1, 5}, 6, 3, kAt); }).find("pass one split per rank") != std::string::npos);
  CHECK(error_of([] { check_splits({-1, 5, 2}, 6, 3, kAt); }).find("a negative split") != std::string::npos);
  CHECK(error_of([] {
          check_splits({1, 1, 1}, 6, 3, kAt);
        }).find("add up to 3, but the first dimension is 6") != std::string::npos);
  CHECK(error_of([] {
          check_splits({4, 4, 0}, 6, 3, kAt);
        }).find("add up to more than the first dimension") != std::string::npos);
}
