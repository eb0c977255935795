// The blocking forms of the ops that allocate their output (allgather, alltoall, reducescatter), with and without
// an allocator, checked against what every rank computes; and C++ calls with bad arguments (an enum value out of
// range, a device kind that is neither, a root past the last rank, splits that do not add up, an out-of-place
// output of another size) that must throw on the calling rank alone and leave the job, and the names of the
// unnamed ops after them, intact. Run under hvdrun at any -np; exits 0 when every check holds.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "hvd/hvd.h"
#include "tests/workers/worker_checks.h"

namespace {

using namespace hvd::test;  // check, check_throws, g_rank, g_failures (worker_checks.h)

int g_size = 1;

// Rank r sends r+1 rows of [r, row] (allgather).
void allgather_owned() {
  std::vector<std::int32_t> mine;
  for (int row = 0; row <= g_rank; ++row) mine.insert(mine.end(), {g_rank, row});
  hvd::Output out = hvd::allgather({mine.data(), hvd::DataType::kInt32, {g_rank + 1, 2}, {}});
  const auto& t = out.tensor();
  const std::int64_t rows = static_cast<std::int64_t>(g_size) * (g_size + 1) / 2;
  check(t.shape == std::vector<std::int64_t>{rows, 2} && t.dtype == hvd::DataType::kInt32, "allgather shape");
  const auto* v = static_cast<const std::int32_t*>(t.data);
  std::int64_t i = 0;
  for (int r = 0; r < g_size; ++r)
    for (int row = 0; row <= r; ++row, ++i) check(v[2 * i] == r && v[2 * i + 1] == row, "allgather value");
}

void allgather_allocated() {
  std::vector<double> storage;
  hvd::AllgatherOptions o;
  o.allocate = [&](hvd::DataType, const std::vector<std::int64_t>& shape) {
    storage.resize(static_cast<std::size_t>(shape[0]));
    return static_cast<void*>(storage.data());
  };
  double mine = g_rank * 0.5;
  hvd::Output out = hvd::allgather({&mine, hvd::DataType::kFloat64, {1}, {}}, o);
  check(out.tensor().data == storage.data(), "allgather with an allocator returns the allocator's memory");
  for (int r = 0; r < g_size; ++r) check(storage.at(r) == r * 0.5, "allgather (allocator) value");
}

// Rank r sends q+1 rows to rank q, each row [r, q].
void alltoall_uneven() {
  std::vector<std::int64_t> splits, data;
  for (int q = 0; q < g_size; ++q) {
    splits.push_back(q + 1);
    for (int k = 0; k <= q; ++k) data.insert(data.end(), {g_rank, q});
  }
  hvd::AlltoallOptions o;
  o.splits = splits;
  const auto rows = static_cast<std::int64_t>(data.size() / 2);
  hvd::Output out = hvd::alltoall({data.data(), hvd::DataType::kInt64, {rows, 2}, {}}, o);
  check(out.tensor().shape == std::vector<std::int64_t>{static_cast<std::int64_t>(g_size) * (g_rank + 1), 2},
        "alltoall shape");
  check(out.received_splits() == std::vector<std::int64_t>(g_size, g_rank + 1), "alltoall received splits");
  const auto* v = static_cast<const std::int64_t*>(out.tensor().data);
  for (int r = 0, i = 0; r < g_size; ++r)
    for (int k = 0; k <= g_rank; ++k, ++i) check(v[2 * i] == r && v[2 * i + 1] == g_rank, "alltoall value");
}

// size+1 rows of [rank+1]: rank 0 gets two rows, the others one; each the sum over ranks.
void reducescatter_sum() {
  std::vector<float> rows(g_size + 1, static_cast<float>(g_rank + 1));
  hvd::ReducescatterOptions o;
  o.op = hvd::ReduceOp::kSum;
  hvd::Output out = hvd::reducescatter({rows.data(), hvd::DataType::kFloat32, {g_size + 1}, {}}, o);
  const std::int64_t mine = g_rank == 0 ? 2 : 1;
  check(out.tensor().shape == std::vector<std::int64_t>{mine}, "reducescatter shape");
  const auto* v = static_cast<const float*>(out.tensor().data);
  for (std::int64_t i = 0; i < mine; ++i) check(v[i] == g_size * (g_size + 1) / 2.0f, "reducescatter value");
}

// Each throws here, on this rank alone; the other ranks make other bad calls or none.
void bad_calls() {
  float x[4] = {1, 2, 3, 4};
  hvd::TensorView ok{x, hvd::DataType::kFloat32, {4}, {}};
  hvd::TensorView bad_dtype{x, static_cast<hvd::DataType>(99), {4}, {}};
  check_throws([&] { hvd::allreduce(bad_dtype, bad_dtype); }, "dtype 99", "allreduce dtype 99");
  hvd::AllreduceOptions bad_op;
  bad_op.op = static_cast<hvd::ReduceOp>(42);
  check_throws([&] { hvd::allreduce(ok, ok, bad_op); }, "reduce op 42", "allreduce op 42");
  hvd::TensorView bad_device = ok;
  bad_device.device.kind = static_cast<hvd::Device::Kind>(7);
  check_throws([&] { hvd::broadcast(bad_device); }, "device kind 7", "broadcast device kind 7");
  if (g_rank % 2 == 0) check_throws([&] { hvd::broadcast(ok, {g_size, ""}); }, "is not a rank", "broadcast root");
  hvd::AlltoallOptions bad_splits;
  bad_splits.splits.assign(g_size, 0);
  bad_splits.splits[0] = 5;
  check_throws([&] { hvd::alltoall(ok, bad_splits); }, "add up", "alltoall splits");
  hvd::TensorView shorter{x, hvd::DataType::kFloat32, {3}, {}};
  check_throws([&] { hvd::allreduce(ok, shorter); }, "must match the input", "allreduce output size");
  check_throws([&] { hvd::reducescatter(ok, {hvd::ReduceOp::kAdasum, "", {}}); }, "adasum", "reducescatter adasum");
}

}  // namespace

int main(int argc, char** argv) {
  const int steps = argc > 1 ? std::atoi(argv[1]) : 20;
  hvd::init();
  g_rank = hvd::rank();
  g_size = hvd::size();
  for (int step = 0; step < steps; ++step) {
    if ((step + g_rank) % 3 == 0) bad_calls();
    allgather_owned();
    allgather_allocated();
    alltoall_uneven();
    reducescatter_sum();
  }
  std::printf("rank %d: blocking forms %s (%d steps)\n", g_rank, g_failures ? "FAILED" : "ok", steps);
  hvd::shutdown();
  return g_failures ? 1 : 0;
}
