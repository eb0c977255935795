// Conformance of every collective against references that every rank computes from the inputs (each rank's input
// is a known function of its rank and the element index). Run under hvdrun at any -np; exits 1 with a message
// naming the op, dtype, size and element at the first mismatch.
//   hvd_conformance [--quick]   (--quick: no 64 MiB cases, 10 steps of the many-tensors test)
//   hvd_conformance --mpi-built (exits 0 when this libhvd has the MPI backend, 1 otherwise; for test scripts)
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "hvd/hvd.h"
#include "tests/workers/element_codec.h"

namespace {

using hvd::DataType;
using hvd::ReduceOp;
using hvd::test::get;
using hvd::test::is_float;
using hvd::test::is_unsigned;
using hvd::test::put;

int g_rank = 0, g_size = 1;

double tolerance(DataType d) {
  switch (d) {
    case DataType::kFloat16:
      return 2e-3;  // 2 ulp
    case DataType::kBFloat16:
      return 1.6e-2;  // 2 ulp
    case DataType::kFloat32:
      return 1e-5;
    case DataType::kFloat64:
      return 1e-12;
    default:
      return 0;
  }
}

// Rank r's input element i for a reduce op: small integers, so sums and products are exact in every dtype.
double input(DataType dt, ReduceOp op, int r, std::size_t i) {
  if (dt == DataType::kBool) return op == ReduceOp::kProduct ? ((i + r) % 5 != 0) : ((i + r) % 3 == 0);
  if (op == ReduceOp::kProduct) {
    std::size_t k = (i + static_cast<std::size_t>(r)) % 4;
    if (is_unsigned(dt)) return k == 0 ? 2 : 1;
    return k == 0 ? -1 : k == 1 ? 2 : 1;
  }
  double v = static_cast<double>((i * 7 + static_cast<std::size_t>(r) * 3) % 11);
  return is_unsigned(dt) ? v : v - 5;
}

double reduce_ref(DataType dt, ReduceOp op, std::size_t i, double pre, double post) {
  double acc = 0;
  for (int r = 0; r < g_size; ++r) {
    double v = input(dt, op, r, i) * pre;
    if (r == 0)
      acc = v;
    else if (op == ReduceOp::kSum || op == ReduceOp::kAverage)
      acc += v;
    else if (op == ReduceOp::kMin)
      acc = std::min(acc, v);
    else if (op == ReduceOp::kMax)
      acc = std::max(acc, v);
    else if (op == ReduceOp::kProduct)
      acc *= v;
  }
  if (dt == DataType::kBool) return acc != 0;
  if (op == ReduceOp::kAverage) {
    if (!is_float(dt)) return static_cast<double>(static_cast<std::int64_t>(acc) / g_size);
    acc /= g_size;
  }
  return acc * post;
}

[[noreturn]] void die(const std::string& msg) {
  std::fprintf(stderr, "[rank %d] CONFORMANCE FAILURE: %s\n", g_rank, msg.c_str());
  std::fflush(stderr);
  std::exit(1);
}

void check(const std::string& what, DataType dt, std::size_t n, const void* got,
           const std::function<double(std::size_t)>& expected) {
  const double tol = tolerance(dt);
  for (std::size_t i = 0; i < n; ++i) {
    double g = get(got, dt, i), e = expected(i);
    bool ok = tol == 0 ? g == e : std::fabs(g - e) <= tol * std::max(1.0, std::fabs(e));
    if (!ok) {
      die(what + " " + hvd::name_of(dt) + " n=" + std::to_string(n) + ": element " + std::to_string(i) + " is " +
          std::to_string(g) + ", expected " + std::to_string(e));
    }
  }
}

std::vector<std::uint8_t> buffer(DataType dt, std::size_t n) {
  return std::vector<std::uint8_t>(n * hvd::size_of(dt) + 1);
}

hvd::TensorView view(std::vector<std::uint8_t>& b, DataType dt, std::vector<std::int64_t> shape) {
  return hvd::TensorView{b.data(), dt, std::move(shape), {}};
}

std::string tag(const char* op, DataType dt, std::size_t n, const std::string& extra = "") {
  return std::string(op) + "/" + hvd::name_of(dt) + "/" + std::to_string(n) + (extra.empty() ? "" : "/" + extra);
}

void test_allreduce(DataType dt, std::size_t n, bool huge) {
  std::vector<ReduceOp> ops = {ReduceOp::kSum, ReduceOp::kMin, ReduceOp::kMax, ReduceOp::kProduct};
  if (dt != DataType::kBool) ops.push_back(ReduceOp::kAverage);
  for (ReduceOp op : ops) {
    for (bool in_place : {true, false}) {
      if (huge && !in_place && op != ReduceOp::kSum) continue;
      auto in = buffer(dt, n), out = buffer(dt, n);
      for (std::size_t i = 0; i < n; ++i) put(in.data(), dt, i, input(dt, op, g_rank, i));
      auto& target = in_place ? in : out;
      auto name = tag("allreduce", dt, n, std::string(hvd::name_of(op)) + (in_place ? "/ip" : "/oop"));
      hvd::allreduce(view(in, dt, {static_cast<std::int64_t>(n)}), view(target, dt, {static_cast<std::int64_t>(n)}),
                     {op, 1.0, 1.0, name});
      check(name, dt, n, target.data(), [&](std::size_t i) { return reduce_ref(dt, op, i, 1, 1); });
    }
  }
  if (is_float(dt)) {
    auto in = buffer(dt, n);
    for (std::size_t i = 0; i < n; ++i) put(in.data(), dt, i, input(dt, ReduceOp::kAverage, g_rank, i));
    auto name = tag("allreduce", dt, n, "scaled");
    hvd::allreduce(view(in, dt, {static_cast<std::int64_t>(n)}), view(in, dt, {static_cast<std::int64_t>(n)}),
                   {ReduceOp::kAverage, 0.5, 3.0, name});
    check(name, dt, n, in.data(), [&](std::size_t i) { return reduce_ref(dt, ReduceOp::kAverage, i, 0.5, 3.0); });
  }
}

double plain(int r, std::size_t i) { return static_cast<double>((i * 5 + static_cast<std::size_t>(r) * 13) % 97); }

void test_allgather(DataType dt, std::size_t n, bool with_allocator) {
  // Rank r sends n + r rows of 2 columns: the first dimension differs per rank.
  auto rows = [&](int r) { return static_cast<std::int64_t>(n) + r; };
  auto in = buffer(dt, static_cast<std::size_t>(rows(g_rank)) * 2);
  for (std::size_t i = 0; i < static_cast<std::size_t>(rows(g_rank)) * 2; ++i)
    put(in.data(), dt, i, plain(g_rank, i) != 0 && dt == DataType::kBool ? 1 : plain(g_rank, i));
  std::vector<std::uint8_t> own;
  hvd::AllgatherOptions o;
  o.name = tag("allgather", dt, n, with_allocator ? "alloc" : "");
  if (with_allocator) {
    o.allocate = [&](DataType, const std::vector<std::int64_t>& shape) {
      own.resize(static_cast<std::size_t>(shape[0] * shape[1]) * hvd::size_of(dt) + 1);
      return static_cast<void*>(own.data());
    };
  }
  auto h = hvd::allgather_async(view(in, dt, {rows(g_rank), 2}), o);
  h.wait();
  std::int64_t total = 0;
  for (int r = 0; r < g_size; ++r) total += rows(r);
  if (h.output().shape != std::vector<std::int64_t>{total, 2}) die(o.name + ": wrong output shape");
  std::vector<double> expect;
  for (int r = 0; r < g_size; ++r) {
    for (std::int64_t i = 0; i < rows(r) * 2; ++i) {
      double v = plain(r, static_cast<std::size_t>(i));
      expect.push_back(dt == DataType::kBool ? v != 0 : v);
    }
  }
  check(o.name, dt, expect.size(), h.output().data, [&](std::size_t i) { return expect[i]; });
}

void test_broadcast(DataType dt, std::size_t n, int root) {
  auto b = buffer(dt, n);
  for (std::size_t i = 0; i < n; ++i) put(b.data(), dt, i, g_rank == root ? plain(root, i) : 0);
  auto name = tag("broadcast", dt, n, "root" + std::to_string(root));
  hvd::broadcast(view(b, dt, {static_cast<std::int64_t>(n)}), {root, name});
  check(name, dt, n, b.data(), [&](std::size_t i) {
    double v = plain(root, i);
    return dt == DataType::kBool ? v != 0 : v;
  });
}

void test_alltoall(DataType dt, std::size_t n) {
  auto split = [&](int from, int to) {
    return static_cast<std::int64_t>((n + static_cast<std::size_t>(from + 2 * to)) % 5 + n / 4);
  };
  std::vector<std::int64_t> splits;
  std::int64_t rows = 0;
  for (int q = 0; q < g_size; ++q) rows += split(g_rank, q), splits.push_back(split(g_rank, q));
  auto in = buffer(dt, static_cast<std::size_t>(rows));
  for (std::int64_t i = 0; i < rows; ++i)
    put(in.data(), dt, static_cast<std::size_t>(i), plain(g_rank, static_cast<std::size_t>(i)));
  hvd::AlltoallOptions o;
  o.splits = splits;
  o.name = tag("alltoall", dt, n);
  auto h = hvd::alltoall_async(view(in, dt, {rows}), o);
  h.wait();
  std::vector<double> expect;
  for (int q = 0; q < g_size; ++q) {
    std::int64_t off = 0;
    for (int p = 0; p < g_rank; ++p) off += split(q, p);
    if (h.received_splits().at(q) != split(q, g_rank))
      die(o.name + ": wrong received split from rank " + std::to_string(q));
    for (std::int64_t j = 0; j < split(q, g_rank); ++j) {
      double v = plain(q, static_cast<std::size_t>(off + j));
      expect.push_back(dt == DataType::kBool ? v != 0 : v);
    }
  }
  if (h.output().num_elements() != static_cast<std::int64_t>(expect.size())) die(o.name + ": wrong output size");
  check(o.name, dt, expect.size(), h.output().data, [&](std::size_t i) { return expect[i]; });
}

void test_reducescatter(DataType dt, std::size_t n) {
  if (dt == DataType::kBool) return;
  for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kAverage}) {
    std::int64_t rows = static_cast<std::int64_t>(n) * g_size + static_cast<std::int64_t>(n % 3);  // uneven too
    auto in = buffer(dt, static_cast<std::size_t>(rows));
    for (std::int64_t i = 0; i < rows; ++i)
      put(in.data(), dt, static_cast<std::size_t>(i), input(dt, op, g_rank, static_cast<std::size_t>(i)));
    hvd::ReducescatterOptions o;
    o.op = op;
    o.name = tag("reducescatter", dt, n, hvd::name_of(op));
    auto h = hvd::reducescatter_async(view(in, dt, {rows}), o);
    h.wait();
    std::int64_t base = rows / g_size, rem = rows % g_size;
    std::int64_t mine = base + (g_rank < rem ? 1 : 0);
    std::int64_t first = g_rank * base + std::min<std::int64_t>(g_rank, rem);
    if (h.output().shape != std::vector<std::int64_t>{mine}) die(o.name + ": wrong output shape");
    check(o.name, dt, static_cast<std::size_t>(mine), h.output().data,
          [&](std::size_t i) { return reduce_ref(dt, op, static_cast<std::size_t>(first) + i, 1, 1); });
  }
}

// Adasum has no simple closed form, but two properties hold for any combination order: identical inputs come back
// unchanged, and mutually orthogonal inputs add up.
template <typename T>
void test_adasum_typed(DataType dt, std::size_t n) {
  std::vector<T> same(n), orth(n);
  for (std::size_t i = 0; i < n; ++i) {
    same[i] = static_cast<T>(std::sin(static_cast<double>(i)) + 2.0);
    orth[i] = static_cast<T>(i % static_cast<std::size_t>(g_size) == static_cast<std::size_t>(g_rank) ? i + 1 : 0);
  }
  const std::int64_t len = static_cast<std::int64_t>(n);
  const std::string tag = std::string(hvd::name_of(dt)) + "/" + std::to_string(n);
  hvd::allreduce({same.data(), dt, {len}, {}}, {same.data(), dt, {len}, {}},
                 {ReduceOp::kAdasum, 1, 1, "adasum/same/" + tag});
  hvd::allreduce({orth.data(), dt, {len}, {}}, {orth.data(), dt, {len}, {}},
                 {ReduceOp::kAdasum, 1, 1, "adasum/orth/" + tag});
  for (std::size_t i = 0; i < n; ++i) {
    const double want_same = std::sin(static_cast<double>(i)) + 2.0, want_orth = static_cast<double>(i + 1);
    if (std::fabs(same[i] - want_same) > 1e-5 * want_same || std::fabs(orth[i] - want_orth) > 1e-5 * want_orth) {
      die("adasum " + tag + " element " + std::to_string(i) + ": got " + std::to_string(same[i]) + " / " +
          std::to_string(orth[i]) + ", expected " + std::to_string(want_same) + " / " + std::to_string(want_orth));
    }
  }
}

void test_adasum() {
  for (std::size_t n : {std::size_t{1}, std::size_t{1000}, std::size_t{(1u << 18) + 3}}) {
    test_adasum_typed<float>(DataType::kFloat32, n);
    test_adasum_typed<double>(DataType::kFloat64, n);
  }
  if (g_rank == 0) std::printf("adasum: ok\n");
}

void test_join() {
  // Rank r runs r+1 steps, then joins: later steps see zeros from joined ranks.
  for (int step = 0; step <= g_rank; ++step) {
    float v[3] = {1, 2, static_cast<float>(g_rank)};
    hvd::allreduce({v, DataType::kFloat32, {3}, {}}, {v, DataType::kFloat32, {3}, {}},
                   {ReduceOp::kSum, 1, 1, "join_step/" + std::to_string(step)});
    int active = g_size - step;
    float rank_sum = 0;
    for (int r = step; r < g_size; ++r) rank_sum += static_cast<float>(r);
    if (v[0] != active || v[1] != 2.0f * active || v[2] != rank_sum) {
      die("join step " + std::to_string(step) + ": got " + std::to_string(v[0]) + ", expected " +
          std::to_string(active));
    }
  }
  int last = hvd::join();
  if (last != g_size - 1) die("join returned " + std::to_string(last) + ", expected " + std::to_string(g_size - 1));
}

void test_grouped() {
  std::vector<std::vector<float>> bufs;
  std::vector<hvd::TensorView> views;
  for (int t = 0; t < 5; ++t) bufs.emplace_back(static_cast<std::size_t>(t * 100 + 1), static_cast<float>(g_rank + t));
  for (auto& b : bufs) views.push_back({b.data(), DataType::kFloat32, {static_cast<std::int64_t>(b.size())}, {}});
  hvd::grouped_allreduce(views, views, {ReduceOp::kSum, 1, 1, "group"});
  for (int t = 0; t < 5; ++t) {
    float expect = static_cast<float>(g_size * (g_size - 1) / 2 + g_size * t);
    if (bufs[t].back() != expect) die("grouped allreduce tensor " + std::to_string(t) + " wrong");
  }
}

void test_many(int steps) {
  const int kTensors = 1000;
  std::vector<std::vector<float>> bufs(kTensors);
  auto start = std::chrono::steady_clock::now();
  double first_step = 0;
  for (int s = 0; s < steps; ++s) {
    auto t0 = std::chrono::steady_clock::now();
    std::vector<hvd::Handle> hs;
    hs.reserve(kTensors);
    for (int t = 0; t < kTensors; ++t) {
      bufs[t].assign(static_cast<std::size_t>(4 + t % 61), static_cast<float>(g_rank + s));
      hs.push_back(
          hvd::allreduce_async({bufs[t].data(), DataType::kFloat32, {static_cast<std::int64_t>(bufs[t].size())}, {}},
                               {bufs[t].data(), DataType::kFloat32, {static_cast<std::int64_t>(bufs[t].size())}, {}},
                               {ReduceOp::kSum, 1, 1, "many/" + std::to_string(t)}));
    }
    for (auto& h : hs) h.wait();
    float expect = static_cast<float>(g_size * (g_size - 1) / 2 + g_size * s);
    for (int t = 0; t < kTensors; ++t) {
      if (bufs[t][0] != expect || bufs[t].back() != expect)
        die("many-tensors step " + std::to_string(s) + " tensor " + std::to_string(t) + " wrong");
    }
    if (s == 0) first_step = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  double total = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (g_rank == 0) {
    std::printf("many tensors: %d steps x %d tensors: first step %.1f ms, later steps %.2f ms each\n", steps, kTensors,
                first_step, steps > 1 ? (total - first_step) / (steps - 1) : 0.0);
  }
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  for (int i = 1; i < argc; ++i) quick |= std::strcmp(argv[i], "--quick") == 0;
  if (argc == 2 && std::strcmp(argv[1], "--mpi-built") == 0) return hvd::mpi_built() ? 0 : 1;
  try {
    hvd::init();
    g_rank = hvd::rank();
    g_size = hvd::size();
    std::printf("topology: rank %d of %d, local %d of %d, cross %d of %d\n", g_rank, g_size, hvd::local_rank(),
                hvd::local_size(), hvd::cross_rank(), hvd::cross_size());
    std::fflush(stdout);
    const DataType all[] = {DataType::kUInt8,   DataType::kInt8,    DataType::kUInt16,  DataType::kInt16,
                            DataType::kInt32,   DataType::kInt64,   DataType::kFloat16, DataType::kBFloat16,
                            DataType::kFloat32, DataType::kFloat64, DataType::kBool};
    const std::size_t sizes[] = {0, 1, 7, 1024 + 3, (1u << 20) + 5};
    auto t0 = std::chrono::steady_clock::now();
    for (DataType dt : all) {
      for (std::size_t n : sizes) {
        test_allreduce(dt, n, false);
        test_allgather(dt, n, n % 2 == 1);
        test_broadcast(dt, n, static_cast<int>(n % static_cast<std::size_t>(g_size)));
        test_alltoall(dt, n);
        test_reducescatter(dt, n);
      }
      if (g_rank == 0) std::printf("%s: ok\n", hvd::name_of(dt));
    }
    if (!quick) {
      for (DataType dt : {DataType::kFloat32, DataType::kUInt8}) {
        std::size_t n = (64u << 20) / hvd::size_of(dt);
        test_allreduce(dt, n, true);
        test_allgather(dt, n / static_cast<std::size_t>(2 * g_size), false);
        test_broadcast(dt, n, g_size - 1);
        test_alltoall(dt, n / static_cast<std::size_t>(g_size));
        test_reducescatter(dt, n / static_cast<std::size_t>(g_size));
        if (g_rank == 0) std::printf("%s 64 MiB: ok\n", hvd::name_of(dt));
      }
    }
    test_adasum();
    test_grouped();
    hvd::barrier();
    test_many(quick ? 10 : 100);
    test_join();
    hvd::barrier();
    if (g_rank == 0) {
      std::printf("conformance: all ops ok at np=%d on the %s backend in %.1f s\n", g_size, hvd::cpu_backend().c_str(),
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    hvd::shutdown();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "[rank %d] CONFORMANCE FAILURE: %s\n", g_rank, e.what());
    return 1;
  }
  return 0;
}
