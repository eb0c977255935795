// Conformance of the collectives on GPU tensors (the NCCL backend): every op with known values (each rank fills
// data from its rank and the element index; results are copied back and checked exactly on the host), fused and
// grouped allreduce, float16/bfloat16, uneven allgather/alltoall/reducescatter, average and scaling, outputs the
// handle allocates, refusals (Adasum, int16 reductions), and CPU ops interleaved in the same job.
// Rank r uses device local_rank. Exits 77 (skip) when there is no CUDA device, or fewer devices than ranks on this
// host (NCCL refuses two ranks on one device); exits 1 naming the op and element at the first mismatch.
//   hvdrun -np 1 build/bin/hvd_gpu_conformance
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "hvd/hvd.h"
#include "runtime/reduce/half.h"

namespace {

using hvd::DataType;
using hvd::ReduceOp;

int g_rank = 0, g_size = 1, g_device = 0;

[[noreturn]] void die(const std::string& why) {
  std::fprintf(stderr, "gpu_conformance rank %d: %s\n", g_rank, why.c_str());
  std::exit(1);
}

void cuda(cudaError_t status, const char* what) {
  if (status != cudaSuccess) die(std::string(what) + ": " + cudaGetErrorString(status));
}

// Device memory holding a copy of a host vector; download() reads it back.
template <typename T>
class DeviceArray {
 public:
  explicit DeviceArray(const std::vector<T>& host) : n_(host.size()) {
    void* p = nullptr;
    cuda(cudaMalloc(&p, std::max<std::size_t>(n_, 1) * sizeof(T)), "cudaMalloc");
    data_ = static_cast<T*>(p);
    if (n_) cuda(cudaMemcpy(data_, host.data(), n_ * sizeof(T), cudaMemcpyHostToDevice), "upload");
  }
  ~DeviceArray() { cudaFree(data_); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  T* data() const { return data_; }
  hvd::TensorView view(DataType dtype, std::vector<std::int64_t> shape) const {
    return {data_, dtype, std::move(shape), hvd::Device::gpu(g_device)};
  }

 private:
  T* data_ = nullptr;
  std::size_t n_;
};

template <typename T>
std::vector<T> download(const void* data, std::size_t n) {
  std::vector<T> out(n);
  if (n) cuda(cudaMemcpy(out.data(), data, n * sizeof(T), cudaMemcpyDeviceToHost), "download");
  return out;
}

void expect(bool ok, const std::string& what) {
  if (!ok) die(what);
}

template <typename T>
void expect_equal(const std::vector<T>& got, const std::vector<double>& want, const std::string& what) {
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (static_cast<double>(got[i]) != want[i]) {
      die(what + ": element " + std::to_string(i) + " is " + std::to_string(static_cast<double>(got[i])) +
          ", expected " + std::to_string(want[i]));
    }
  }
}

void ok(const std::string& what) {
  if (g_rank == 0) std::printf("ok: %s\n", what.c_str());
}

double triangle() { return g_size * (g_size - 1) / 2.0; }  // sum of the ranks

void allreduce_ops() {
  const std::size_t n = 1000;
  std::vector<float> in(n);
  for (std::size_t i = 0; i < n; ++i) in[i] = static_cast<float>(i + g_rank);
  {
    DeviceArray<float> a(in), out{std::vector<float>(n)};
    hvd::allreduce(a.view(DataType::kFloat32, {10, 100}), out.view(DataType::kFloat32, {10, 100}),
                   {ReduceOp::kSum, 1, 1, "sum"});
    std::vector<double> want(n);
    for (std::size_t i = 0; i < n; ++i) want[i] = g_size * static_cast<double>(i) + triangle();
    expect_equal(download<float>(out.data(), n), want, "allreduce sum float32 out of place");
    // Sum with pre 2 and post 1.5: one PreMulSum by 3.
    hvd::allreduce(a.view(DataType::kFloat32, {1000}), a.view(DataType::kFloat32, {1000}),
                   {ReduceOp::kSum, 2.0, 1.5, "scaled"});
    for (auto& w : want) w *= 3;
    expect_equal(download<float>(a.data(), n), want, "allreduce sum with prescale 2, postscale 1.5");
  }
  {
    std::vector<float> v(n, static_cast<float>(2 * (g_rank + 1)));
    DeviceArray<float> a(v);
    hvd::allreduce(a.view(DataType::kFloat32, {1000}), a.view(DataType::kFloat32, {1000}),
                   {ReduceOp::kAverage, 1, 1, "average"});
    expect_equal(download<float>(a.data(), n), std::vector<double>(n, g_size + 1.0), "allreduce average");
    // Average with postscale 4 (a PreMulSum by 4/size), on the average's result.
    hvd::allreduce(a.view(DataType::kFloat32, {1000}), a.view(DataType::kFloat32, {1000}),
                   {ReduceOp::kAverage, 1, 4, "average.scaled"});
    expect_equal(download<float>(a.data(), n), std::vector<double>(n, 4.0 * (g_size + 1)), "average, postscale 4");
  }
  {
    std::vector<std::int32_t> v(n, g_rank + 1);
    DeviceArray<std::int32_t> mn(v), mx(v), pr(v);
    hvd::allreduce(mn.view(DataType::kInt32, {1000}), mn.view(DataType::kInt32, {1000}), {ReduceOp::kMin, 1, 1, "min"});
    hvd::allreduce(mx.view(DataType::kInt32, {1000}), mx.view(DataType::kInt32, {1000}), {ReduceOp::kMax, 1, 1, "max"});
    hvd::allreduce(pr.view(DataType::kInt32, {1000}), pr.view(DataType::kInt32, {1000}),
                   {ReduceOp::kProduct, 1, 1, "product"});
    double fact = 1;
    for (int r = 1; r <= g_size; ++r) fact *= r;
    expect_equal(download<std::int32_t>(mn.data(), n), std::vector<double>(n, 1), "allreduce min int32");
    expect_equal(download<std::int32_t>(mx.data(), n), std::vector<double>(n, g_size), "allreduce max int32");
    expect_equal(download<std::int32_t>(pr.data(), n), std::vector<double>(n, fact), "allreduce product int32");
  }
  {
    std::vector<std::int64_t> v(n, (1ll << 40) + g_rank);
    DeviceArray<std::int64_t> a(v);
    hvd::allreduce(a.view(DataType::kInt64, {1000}), a.view(DataType::kInt64, {1000}), {ReduceOp::kSum, 1, 1, "int64"});
    auto got = download<std::int64_t>(a.data(), n);
    expect(got[7] == g_size * (1ll << 40) + static_cast<std::int64_t>(triangle()), "allreduce sum int64");
    std::vector<std::uint8_t> b(n, g_rank == 0 ? 1 : 0);
    DeviceArray<std::uint8_t> flags(b);
    hvd::allreduce(flags.view(DataType::kBool, {1000}), flags.view(DataType::kBool, {1000}),
                   {ReduceOp::kSum, 1, 1, "bool.or"});
    expect_equal(download<std::uint8_t>(flags.data(), n), std::vector<double>(n, 1), "allreduce bool (logical or)");
    std::vector<std::int8_t> c(n, static_cast<std::int8_t>(-g_rank));
    DeviceArray<std::int8_t> i8(c);
    hvd::allreduce(i8.view(DataType::kInt8, {1000}), i8.view(DataType::kInt8, {1000}), {ReduceOp::kMin, 1, 1, "int8"});
    expect_equal(download<std::int8_t>(i8.data(), n), std::vector<double>(n, -(g_size - 1)), "allreduce min int8");
  }
  ok("allreduce sum/average/min/max/product, scaling, int64/bool/int8");
}

void half_types() {
  const std::size_t n = 333;
  std::vector<std::uint16_t> h(n), b(n);
  for (std::size_t i = 0; i < n; ++i) {
    h[i] = hvd::detail::fp16::float_to_half(static_cast<float>(i % 64 + g_rank));
    b[i] = hvd::detail::fp16::float_to_bfloat16(static_cast<float>(i % 64 + g_rank));
  }
  DeviceArray<std::uint16_t> dh(h), db(b);
  auto h1 = hvd::allreduce_async(dh.view(DataType::kFloat16, {333}), dh.view(DataType::kFloat16, {333}),
                                 {ReduceOp::kSum, 1, 1, "float16"});
  auto h2 = hvd::allreduce_async(db.view(DataType::kBFloat16, {333}), db.view(DataType::kBFloat16, {333}),
                                 {ReduceOp::kSum, 1, 1, "bfloat16"});
  h1.wait();
  h2.wait();
  auto gh = download<std::uint16_t>(dh.data(), n), gb = download<std::uint16_t>(db.data(), n);
  for (std::size_t i = 0; i < n; ++i) {
    const double want = g_size * static_cast<double>(i % 64) + triangle();
    if (hvd::detail::fp16::half_to_float(gh[i]) != want) die("float16 sum: element " + std::to_string(i));
    if (hvd::detail::fp16::bfloat16_to_float(gb[i]) != want) die("bfloat16 sum: element " + std::to_string(i));
  }
  ok("float16 and bfloat16 allreduce (native NCCL types)");
}

void fused_and_grouped() {
  const int k = 64;
  std::vector<std::unique_ptr<DeviceArray<float>>> bufs;
  std::vector<hvd::Handle> hs;
  for (int t = 0; t < k; ++t) {
    std::vector<float> v(static_cast<std::size_t>(t * 7 + 1), static_cast<float>(t + g_rank));
    bufs.push_back(std::make_unique<DeviceArray<float>>(v));
    auto view = bufs.back()->view(DataType::kFloat32, {t * 7 + 1});
    hs.push_back(hvd::allreduce_async(view, view, {ReduceOp::kSum, 1, 1, "fused." + std::to_string(t)}));
  }
  // A CPU op in the middle of the burst: never fused with the GPU tensors.
  std::vector<float> cpu(100, static_cast<float>(g_rank));
  hvd::TensorView cv{cpu.data(), DataType::kFloat32, {100}, {}};
  auto hc = hvd::allreduce_async(cv, cv, {ReduceOp::kSum, 1, 1, "cpu.in.burst"});
  for (auto& h : hs) h.wait();
  hc.wait();
  for (int t = 0; t < k; ++t) {
    auto got = download<float>(bufs[t]->data(), static_cast<std::size_t>(t * 7 + 1));
    expect_equal(got, std::vector<double>(got.size(), g_size * t + triangle()), "fused allreduce " + std::to_string(t));
  }
  expect(cpu[99] == static_cast<float>(triangle()), "CPU allreduce inside a GPU burst");

  std::vector<float> a(10, 1.0f), b(20, static_cast<float>(g_rank));
  DeviceArray<float> da(a), db(b);
  hvd::grouped_allreduce({da.view(DataType::kFloat32, {10}), db.view(DataType::kFloat32, {20})},
                         {da.view(DataType::kFloat32, {10}), db.view(DataType::kFloat32, {20})},
                         {ReduceOp::kAverage, 1, 1, "grouped"});
  expect_equal(download<float>(da.data(), 10), std::vector<double>(10, 1.0), "grouped average a");
  expect_equal(download<float>(db.data(), 20), std::vector<double>(20, triangle() / g_size), "grouped average b");
  // The fusion buffer grows (a bigger group) while the smaller group may still run on the stream: the old block
  // must not be freed under it.
  std::vector<std::unique_ptr<DeviceArray<float>>> small, big;
  std::vector<hvd::TensorView> sv, bv;
  for (int t = 0; t < 2; ++t) {
    small.push_back(std::make_unique<DeviceArray<float>>(std::vector<float>(1 << 10, static_cast<float>(g_rank))));
    big.push_back(std::make_unique<DeviceArray<float>>(std::vector<float>(1 << 22, static_cast<float>(g_rank + 1))));
    sv.push_back(small.back()->view(DataType::kFloat32, {1 << 10}));
    bv.push_back(big.back()->view(DataType::kFloat32, {1 << 22}));
  }
  auto hsmall = hvd::grouped_allreduce_async(sv, sv, {ReduceOp::kSum, 1, 1, "grow.small"});
  auto hbig = hvd::grouped_allreduce_async(bv, bv, {ReduceOp::kSum, 1, 1, "grow.big"});
  hsmall.wait();
  hbig.wait();
  for (int t = 0; t < 2; ++t) {
    expect_equal(download<float>(small[t]->data(), 1 << 10), std::vector<double>(1 << 10, triangle()),
                 "fusion buffer growth: the earlier group");
    auto got = download<float>(big[t]->data(), 1 << 22);
    expect(got.front() == triangle() + g_size && got.back() == triangle() + g_size,
           "fusion buffer growth: the bigger group");
  }
  ok("fused allreduce of 64 tensors with a CPU op in the burst; grouped allreduce; fusion buffer growth");
}

void allgather_uneven() {
  const int rows = g_rank + 1, cols = 3;
  std::vector<float> in(static_cast<std::size_t>(rows * cols));
  for (int i = 0; i < rows * cols; ++i) in[i] = static_cast<float>(g_rank * 100 + i);
  DeviceArray<float> d(in);
  std::vector<double> want;
  for (int r = 0; r < g_size; ++r)
    for (int i = 0; i < (r + 1) * cols; ++i) want.push_back(r * 100 + i);
  auto h = hvd::allgather_async(d.view(DataType::kFloat32, {rows, cols}), {"allgather.owned", {}});
  h.wait();
  const auto& out = h.output();
  expect(out.device.is_gpu() && out.device.index == g_device, "allgather: the owned output is on the device");
  expect(out.shape[0] == static_cast<std::int64_t>(want.size() / cols), "allgather: output rows");
  expect_equal(download<float>(out.data, want.size()), want, "allgather uneven (handle-owned output)");
  // With an allocator (device memory from the caller).
  void* mine = nullptr;
  auto h2 = hvd::allgather_async(d.view(DataType::kFloat32, {rows, cols}),
                                 {"allgather.alloc", [&](DataType, const std::vector<std::int64_t>& shape) {
                                    std::size_t bytes = sizeof(float) * shape[0] * shape[1];
                                    cuda(cudaMalloc(&mine, bytes), "cudaMalloc in allocator");
                                    return mine;
                                  }});
  h2.wait();
  expect_equal(download<float>(mine, want.size()), want, "allgather uneven (allocator)");
  cudaFree(mine);
  // int16 moves as bytes.
  std::vector<std::int16_t> s(4, static_cast<std::int16_t>(-g_rank));
  DeviceArray<std::int16_t> ds(s);
  auto h3 = hvd::allgather_async(ds.view(DataType::kInt16, {4}), {"allgather.int16", {}});
  h3.wait();
  auto got = download<std::int16_t>(h3.output().data, 4 * static_cast<std::size_t>(g_size));
  for (int r = 0; r < g_size; ++r) expect(got[r * 4 + 3] == -r, "allgather int16");
  ok("allgather with uneven first dimensions (owned and allocated outputs), int16");
}

void broadcast_and_alltoall() {
  const int root = g_size - 1;
  std::vector<double> v(77, g_rank == root ? 3.25 : -1.0);
  DeviceArray<double> d(v);
  hvd::broadcast(d.view(DataType::kFloat64, {77}), {root, "broadcast"});
  expect_equal(download<double>(d.data(), 77), std::vector<double>(77, 3.25), "broadcast float64 from the last rank");

  // Rank r sends q + r + 1 rows (2 columns) to rank q; row j to q holds 1000 r + 10 q + j.
  std::vector<std::int64_t> splits;
  std::vector<std::int32_t> in;
  for (int q = 0; q < g_size; ++q) {
    splits.push_back(q + g_rank + 1);
    for (int j = 0; j < q + g_rank + 1; ++j) in.insert(in.end(), 2, 1000 * g_rank + 10 * q + j);
  }
  DeviceArray<std::int32_t> din(in);
  auto h = hvd::alltoall_async(din.view(DataType::kInt32, {static_cast<std::int64_t>(in.size() / 2), 2}),
                               {splits, "alltoall", {}});
  h.wait();
  std::vector<double> want;
  for (int r = 0; r < g_size; ++r)
    for (int j = 0; j < g_rank + r + 1; ++j) want.insert(want.end(), 2, 1000 * r + 10 * g_rank + j);
  expect(h.received_splits().size() == static_cast<std::size_t>(g_size), "alltoall received splits");
  expect_equal(download<std::int32_t>(h.output().data, want.size()), want, "alltoall uneven");
  ok("broadcast; alltoall with uneven splits");
}

void reducescatter_uneven() {
  const int rows = 2 * g_size + 1, cols = 2;  // does not divide: the first ranks get one more row
  std::vector<float> in(static_cast<std::size_t>(rows * cols));
  for (int i = 0; i < rows * cols; ++i) in[i] = static_cast<float>(i + g_rank);
  DeviceArray<float> d(in);
  auto h = hvd::reducescatter_async(d.view(DataType::kFloat32, {rows, cols}), {ReduceOp::kSum, "reducescatter", {}});
  auto h2 =
      hvd::reducescatter_async(d.view(DataType::kFloat32, {rows, cols}), {ReduceOp::kAverage, "reducescatter.avg", {}});
  h.wait();
  h2.wait();
  const int mine = rows / g_size + (g_rank < rows % g_size ? 1 : 0);
  const int first = g_rank * (rows / g_size) + std::min(g_rank, rows % g_size);
  std::vector<double> want, want_avg;
  for (int i = first * cols; i < (first + mine) * cols; ++i) {
    want.push_back(g_size * static_cast<double>(i) + triangle());
    want_avg.push_back(i + triangle() / g_size);
  }
  expect(h.output().shape[0] == mine, "reducescatter output rows");
  expect_equal(download<float>(h.output().data, want.size()), want, "reducescatter sum uneven");
  expect_equal(download<float>(h2.output().data, want.size()), want_avg, "reducescatter average uneven");
  ok("reducescatter sum and average with uneven blocks (fused pair)");
}

void refusals() {
  std::vector<float> v(8, 1.0f);
  DeviceArray<float> d(v);
  try {
    hvd::allreduce(d.view(DataType::kFloat32, {8}), d.view(DataType::kFloat32, {8}), {ReduceOp::kAdasum, 1, 1, "ada"});
    die("adasum on a GPU tensor was accepted");
  } catch (const hvd::Error& e) {
    expect(std::string(e.what()).find("'ada'") != std::string::npos, std::string("adasum error: ") + e.what());
  }
  std::vector<std::int16_t> s(8, 1);
  DeviceArray<std::int16_t> ds(s);
  try {
    hvd::allreduce(ds.view(DataType::kInt16, {8}), ds.view(DataType::kInt16, {8}), {ReduceOp::kSum, 1, 1, "i16"});
    die("an int16 GPU allreduce was accepted");
  } catch (const hvd::Error& e) {
    expect(std::string(e.what()).find("int32") != std::string::npos, std::string("int16 error: ") + e.what());
  }
  ok("Adasum and int16 reductions on GPU tensors are refused with a clear error");
}

}  // namespace

int main() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::printf("skip: no CUDA device visible\n");
    return 77;
  }
  try {
    hvd::init();
    g_rank = hvd::rank();
    g_size = hvd::size();
    if (count < hvd::local_size()) {
      std::printf("skip: %d CUDA device(s) for %d ranks on this host (NCCL needs one device per rank)\n", count,
                  hvd::local_size());
      return 77;
    }
    g_device = hvd::local_rank();
    cuda(cudaSetDevice(g_device), "cudaSetDevice");
    allreduce_ops();
    half_types();
    fused_and_grouped();
    allgather_uneven();
    broadcast_and_alltoall();
    reducescatter_uneven();
    refusals();
    for (int step = 0; step < 5; ++step) allreduce_ops();  // the response cache's path
    hvd::shutdown();
  } catch (const std::exception& e) {
    die(e.what());
  }
  if (g_rank == 0) std::printf("gpu conformance passed at np=%d\n", g_size);
  return 0;
}
