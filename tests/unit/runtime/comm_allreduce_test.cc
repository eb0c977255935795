// Allreduce on every layout (one host through shared memory, several hosts over TCP, mixed hierarchical) for every
// dtype, op and the sizes that matter (0, 1, 7, 1 KiB+3, 1 MiB+5), against a reference every rank can compute.
#include <doctest/doctest.h>

#include <algorithm>

#include "tests/unit/runtime/comm_test_util.h"

using namespace hvd;
using namespace hvd::test;

namespace {
double input(ReduceOp op, DataType t, int rank, std::size_t i) {
  double v = op == ReduceOp::kProduct ? static_cast<double>((i + rank) % 2 + 1)
             : op == ReduceOp::kSum   ? static_cast<double>((i + rank) % 5 + 1)
                                      : static_cast<double>((i * 3 + rank * 7) % 11);
  if (t == DataType::kBool) v = static_cast<double>((i + rank) % 3 == 0);
  return v;
}

double expected(ReduceOp op, DataType t, int n, std::size_t i) {
  double acc = input(op, t, 0, i);
  for (int r = 1; r < n; ++r) {
    double v = input(op, t, r, i);
    if (t == DataType::kBool) {
      bool is_and = op == ReduceOp::kProduct || op == ReduceOp::kMin;
      acc = is_and ? (acc != 0 && v != 0) : (acc != 0 || v != 0);
      continue;
    }
    switch (op) {
      case ReduceOp::kSum: acc += v; break;
      case ReduceOp::kProduct: acc *= v; break;
      case ReduceOp::kMin: acc = std::min(acc, v); break;
      default: acc = std::max(acc, v); break;
    }
  }
  return acc;
}

void check_allreduce(const Job& job, const std::vector<std::size_t>& sizes, const std::vector<ReduceOp>& ops) {
  const int n = static_cast<int>(job.hosts.size());
  run_ranks(job, [&](detail::Communicator& c, int rank) {
    for (DataType t : kAllTypes) {
      for (ReduceOp op : ops) {
        for (std::size_t count : sizes) {
          std::vector<std::byte> buf(count * size_of(t) + 1);
          for (std::size_t i = 0; i < count; ++i) put(t, buf.data(), i, input(op, t, rank, i));
          c.allreduce(buf.data(), count, t, op);
          for (std::size_t i = 0; i < count; ++i) {
            double got = get(t, buf.data(), i), want = expected(op, t, n, i);
            if (got != want) expect(false, std::string("allreduce ") + name_of(t) + " " + name_of(op) +
                                    " count " + std::to_string(count) + " element " + std::to_string(i) + ": got " +
                                    std::to_string(got) + ", want " + std::to_string(want));
          }
        }
      }
    }
  });
}

const std::vector<ReduceOp> kOps = {ReduceOp::kSum, ReduceOp::kMin, ReduceOp::kMax, ReduceOp::kProduct};
const std::vector<std::size_t> kSmall = {0, 1, 7, 1027};
const std::vector<std::size_t> kLarge = {(1u << 20) + 5};
}  // namespace

TEST_CASE("allreduce on one host, np 1 to 4, every dtype and op") {
  for (int n = 1; n <= 4; ++n) {
    CAPTURE(n);
    CHECK_NOTHROW(check_allreduce(one_host(n), kSmall, kOps));
    CHECK_NOTHROW(check_allreduce(one_host(n), kLarge, {ReduceOp::kSum}));
  }
}

TEST_CASE("allreduce on one host with tiny slots takes many rounds") {
  CHECK_NOTHROW(check_allreduce(one_host(3, 4096), {0, 1, 7, 1027, 100003}, kOps));
}

TEST_CASE("allreduce over TCP, one rank per host") {
  CHECK_NOTHROW(check_allreduce(hosts({"a", "b"}), kSmall, kOps));
  CHECK_NOTHROW(check_allreduce(hosts({"a", "b", "c"}), kSmall, kOps));
  CHECK_NOTHROW(check_allreduce(hosts({"a", "b", "c"}), kLarge, {ReduceOp::kSum}));
}

TEST_CASE("hierarchical allreduce, several ranks on several hosts") {
  CHECK_NOTHROW(check_allreduce(hosts({"a", "a", "b", "b"}), kSmall, kOps));
  CHECK_NOTHROW(check_allreduce(hosts({"a", "b", "a"}), kSmall, kOps));
  CHECK_NOTHROW(check_allreduce(hosts({"a", "a", "b"}), kLarge, {ReduceOp::kSum}));
}

TEST_CASE("up to 8 ranks on one host (more ranks than cores) stay correct") {
  CHECK_NOTHROW(check_allreduce(one_host(8), {1, 1027, 50001}, {ReduceOp::kSum}));
}
