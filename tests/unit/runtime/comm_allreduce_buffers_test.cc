// allreduce_buffers on every layout: each buffer must end up bit for bit as one allreduce over the buffers
// concatenated would leave it (that allreduce is checked against a reference in comm_allreduce_test.cc), with
// buffers of odd and zero lengths, pieces that straddle the shared-memory chunks, and nothing written past a buffer.
#include <doctest/doctest.h>

#include <cstring>

#include "tests/unit/runtime/comm_test_util.h"

using namespace hvd;
using namespace hvd::test;

namespace {
constexpr DataType kTypes[] = {DataType::kInt32, DataType::kUInt8, DataType::kFloat16, DataType::kBFloat16,
                               DataType::kFloat32, DataType::kFloat64};
constexpr std::byte kGuard{0x5a};

double input(DataType t, int rank, std::size_t buffer, std::size_t i) {
  bool floating = t == DataType::kFloat16 || t == DataType::kBFloat16 || t == DataType::kFloat32 ||
                  t == DataType::kFloat64;
  double v = static_cast<double>((i * 7 + buffer * 3 + static_cast<std::size_t>(rank) * 5) % 13);
  return floating ? v * 0.37 + 0.011 * rank : v;
}

void check_buffers(const Job& job, const std::vector<std::vector<std::size_t>>& layouts) {
  run_ranks(job, [&](detail::Communicator& c, int rank) {
    for (DataType t : kTypes) {
      const std::size_t es = size_of(t);
      for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kMax}) {
        for (const auto& counts : layouts) {
          std::vector<std::vector<std::byte>> bufs;
          std::vector<std::byte> packed;
          for (std::size_t b = 0; b < counts.size(); ++b) {
            bufs.emplace_back(counts[b] * es + 1, kGuard);
            for (std::size_t i = 0; i < counts[b]; ++i) put(t, bufs[b].data(), i, input(t, rank, b, i));
            packed.insert(packed.end(), bufs[b].begin(), bufs[b].end() - 1);
          }
          std::vector<detail::MutableBuffer> views;
          for (std::size_t b = 0; b < counts.size(); ++b) views.push_back({bufs[b].data(), counts[b]});
          c.allreduce_buffers(views, t, op);
          c.allreduce(packed.data(), packed.size() / es, t, op);
          std::size_t off = 0;
          for (std::size_t b = 0; b < counts.size(); ++b) {
            const std::string what = std::string(name_of(t)) + " " + name_of(op) + " buffer " +
                                     std::to_string(b) + " of " + std::to_string(counts[b]);
            expect(std::memcmp(bufs[b].data(), packed.data() + off, counts[b] * es) == 0,
                   what + ": differs from one allreduce over the concatenation");
            expect(bufs[b].back() == kGuard, what + ": written past its end");
            off += counts[b] * es;
          }
        }
      }
    }
  });
}

// Small (one-barrier) path, large path, a single buffer, only empty buffers, none at all.
const std::vector<std::vector<std::size_t>> kLayouts = {
    {5, 0, 3, 1}, {1027, 0, 40001, 7, 0, 1, 65536, 3}, {100003}, {0, 0}, {}};
}  // namespace

TEST_CASE("allreduce_buffers on one host, np 2 and 3") {
  for (int n : {2, 3}) {
    CAPTURE(n);
    CHECK_NOTHROW(check_buffers(one_host(n), kLayouts));
  }
}

TEST_CASE("allreduce_buffers on one host with tiny slots: buffers straddle chunks and parts") {
  CHECK_NOTHROW(check_buffers(one_host(2, 4096), kLayouts));
  CHECK_NOTHROW(check_buffers(one_host(3, 4096), kLayouts));
}

TEST_CASE("allreduce_buffers on one rank leaves the buffers as they are") {
  CHECK_NOTHROW(check_buffers(one_host(1), kLayouts));
}

TEST_CASE("allreduce_buffers over TCP and hierarchical (the packing default)") {
  CHECK_NOTHROW(check_buffers(hosts({"a", "b", "c"}), kLayouts));
  CHECK_NOTHROW(check_buffers(hosts({"a", "a", "b"}), kLayouts));
}
