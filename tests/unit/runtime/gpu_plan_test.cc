// The GPU path's pure decisions: which reductions NCCL runs and how, the PreMulSum factor for average and
// scaling, the coordinator's refusals, and that CPU and GPU tensors never share a fused or cached response.
#include "runtime/engine/gpu/gpu_plan.h"

#include <doctest/doctest.h>

#include "runtime/engine/fusion.h"
#include "runtime/engine/response_cache.h"
#include "runtime/engine/validation.h"
#include "runtime/engine/wire.h"

using namespace hvd;
using namespace hvd::detail;

namespace {
Response gpu_reduction(ReduceOp op, DataType dtype = DataType::kFloat32, double pre = 1.0, double post = 1.0) {
  Response r;
  r.type = OpType::kAllreduce;
  r.names = {"g"};
  r.dtype = dtype;
  r.reduce_op = op;
  r.prescale = pre;
  r.postscale = post;
  r.shapes = {{8}};
  r.device = Device::Kind::kGPU;
  return r;
}
}  // namespace

TEST_CASE("plain reductions map onto NCCL's own ops") {
  CHECK(plan_gpu_reduction(gpu_reduction(ReduceOp::kSum), 4).op == GpuReduction::kSum);
  CHECK(plan_gpu_reduction(gpu_reduction(ReduceOp::kAverage), 4).op == GpuReduction::kAverage);
  CHECK(plan_gpu_reduction(gpu_reduction(ReduceOp::kMin), 4).op == GpuReduction::kMin);
  CHECK(plan_gpu_reduction(gpu_reduction(ReduceOp::kMax), 4).cross_op == ReduceOp::kMax);
  CHECK(plan_gpu_reduction(gpu_reduction(ReduceOp::kProduct), 4).op == GpuReduction::kProduct);
  CHECK(plan_gpu_reduction(gpu_reduction(ReduceOp::kAverage, DataType::kInt32), 4).op == GpuReduction::kAverage);
}

TEST_CASE("scale factors fold into one PreMulSum factor") {
  auto sum = plan_gpu_reduction(gpu_reduction(ReduceOp::kSum, DataType::kFloat32, 2.0, 0.25), 4);
  CHECK(sum.op == GpuReduction::kPreMulSum);
  CHECK(sum.factor == doctest::Approx(0.5));
  auto avg = plan_gpu_reduction(gpu_reduction(ReduceOp::kAverage, DataType::kFloat16, 3.0, 1.0), 4);
  CHECK(avg.op == GpuReduction::kPreMulSum);
  CHECK(avg.factor == doctest::Approx(0.75));
  CHECK(avg.cross_op == ReduceOp::kSum);
  // Factors that cancel need no PreMulSum at all.
  CHECK(plan_gpu_reduction(gpu_reduction(ReduceOp::kAverage, DataType::kFloat32, 2.0, 0.5), 4).op ==
        GpuReduction::kAverage);
}

TEST_CASE("bool reduces as logical or / and") {
  CHECK(plan_gpu_reduction(gpu_reduction(ReduceOp::kSum, DataType::kBool), 2).op == GpuReduction::kMax);
  CHECK(plan_gpu_reduction(gpu_reduction(ReduceOp::kProduct, DataType::kBool), 2).op == GpuReduction::kMin);
}

TEST_CASE("what NCCL cannot do is refused with what to do instead") {
  CHECK(gpu_support_error(gpu_reduction(ReduceOp::kSum)).empty());
  CHECK(gpu_support_error(gpu_reduction(ReduceOp::kAdasum)).find("copy the tensor to the CPU") != std::string::npos);
  CHECK(gpu_support_error(gpu_reduction(ReduceOp::kSum, DataType::kInt16)).find("int32") != std::string::npos);
  CHECK(gpu_support_error(gpu_reduction(ReduceOp::kMax, DataType::kFloat32, 2.0)).find("sum and average") !=
        std::string::npos);
  CHECK(gpu_support_error(gpu_reduction(ReduceOp::kSum, DataType::kInt32, 2.0)).find("floating-point") !=
        std::string::npos);
  Response move = gpu_reduction(ReduceOp::kSum, DataType::kInt16);
  move.type = OpType::kAllgather;
  CHECK(gpu_support_error(move).empty());  // data movement is bytes: every dtype
}

TEST_CASE("the coordinator refuses Adasum on GPU tensors on every rank, naming the tensor") {
  Request q;
  q.name = "grad/w";
  q.shape = {4};
  q.reduce_op = ReduceOp::kAdasum;
  q.device = Device::Kind::kGPU;
  Request q1 = q;
  q1.rank = 1;
  auto r = validate({&q, &q1}, std::vector<std::string>{"h1", "h1"});
  CHECK(r.error.find("allreduce 'grad/w': adasum is not available for GPU tensors") == 0);
  q.reduce_op = q1.reduce_op = ReduceOp::kSum;
  r = validate({&q, &q1}, std::vector<std::string>{"h1", "h1"});
  CHECK(r.error.empty());
  CHECK(r.device == Device::Kind::kGPU);
}

TEST_CASE("CPU and GPU tensors are never fused together") {
  Response cpu = gpu_reduction(ReduceOp::kSum);
  cpu.device = Device::Kind::kCPU;
  cpu.names = {"c"};
  Response gpu = gpu_reduction(ReduceOp::kSum);
  Response gpu2 = gpu;
  gpu2.names = {"g2"};
  auto out = plan_fusion({cpu, gpu, gpu2}, 1 << 20);
  REQUIRE(out.size() == 2);
  CHECK(out[0].names == std::vector<std::string>{"c"});
  CHECK(out[1].names == std::vector<std::string>{"g", "g2"});
  CHECK(out[1].device == Device::Kind::kGPU);
}

TEST_CASE("the device kind survives the wire") {
  ResponseList list;
  list.responses.push_back(gpu_reduction(ReduceOp::kSum));
  auto back = decode_responses(encode(list));
  REQUIRE(back.responses.size() == 1);
  CHECK(back.responses[0].device == Device::Kind::kGPU);
}

TEST_CASE("a cached CPU response is stale for the same name on the GPU") {
  ResponseCache cache(8);
  Response cpu = gpu_reduction(ReduceOp::kSum);
  cpu.device = Device::Kind::kCPU;
  cache.put(cpu);
  Request q;
  q.name = "g";
  q.shape = {8};
  CHECK(cache.lookup(q).kind == ResponseCache::Kind::kHit);
  q.device = Device::Kind::kGPU;
  CHECK(cache.lookup(q).kind == ResponseCache::Kind::kStale);
}

TEST_CASE("ranks that pass a GPU tensor and a CPU tensor for one name fail with both named") {
  Request q;
  q.name = "w";
  q.shape = {4};
  Request q1 = q;
  q1.rank = 1;
  q1.device = Device::Kind::kGPU;
  auto r = validate({&q, &q1}, std::vector<std::string>{"h1", "h2"});
  CHECK(r.error ==
        "allreduce 'w': rank 1 (h2) sent a GPU tensor, rank 0 (h1) sent a CPU tensor; put the tensor on the same kind "
        "of device on every rank");
}
