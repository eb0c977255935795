#include <doctest/doctest.h>

#include "runtime/engine/fusion.h"

using namespace hvd;
using namespace hvd::detail;

namespace {
Response single(const std::string& name, DataType dtype, std::int64_t elems, OpType type = OpType::kAllreduce,
                ReduceOp op = ReduceOp::kSum) {
  Response r;
  r.type = type;
  r.names = {name};
  r.dtype = dtype;
  r.reduce_op = op;
  r.shapes = {{elems}};
  return r;
}
}  // namespace

TEST_CASE("fusion packs compatible tensors and looks past ones that do not match") {
  std::vector<Response> in = {single("a", DataType::kFloat32, 10), single("b", DataType::kFloat16, 10),
                              single("c", DataType::kFloat32, 10), single("d", DataType::kFloat16, 10)};
  auto out = plan_fusion(in, 1 << 20);
  REQUIRE(out.size() == 2);
  CHECK(out[0].names == std::vector<std::string>{"a", "c"});
  CHECK(out[1].names == std::vector<std::string>{"b", "d"});
  CHECK(out[0].shapes.size() == 2);
}

TEST_CASE("fusion respects the threshold and keeps order") {
  std::vector<Response> in = {single("a", DataType::kFloat32, 100), single("b", DataType::kFloat32, 100),
                              single("c", DataType::kFloat32, 100)};
  auto out = plan_fusion(in, 800);  // two 400-byte tensors fit, the third does not
  REQUIRE(out.size() == 2);
  CHECK(out[0].names == std::vector<std::string>{"a", "b"});
  CHECK(out[1].names == std::vector<std::string>{"c"});
}

TEST_CASE("threshold 0 turns fusion off; adasum, errors and other ops are never fused") {
  std::vector<Response> in = {single("a", DataType::kFloat32, 1), single("b", DataType::kFloat32, 1)};
  CHECK(plan_fusion(in, 0).size() == 2);
  std::vector<Response> mixed = {single("a", DataType::kFloat32, 1, OpType::kAllreduce, ReduceOp::kAdasum),
                                 single("b", DataType::kFloat32, 1, OpType::kAllreduce, ReduceOp::kAdasum),
                                 single("c", DataType::kFloat32, 1, OpType::kBroadcast),
                                 single("d", DataType::kFloat32, 1, OpType::kBroadcast)};
  CHECK(plan_fusion(mixed, 1 << 20).size() == 4);
  auto bad = single("e", DataType::kFloat32, 1);
  bad.error = "boom";
  CHECK(plan_fusion({bad, single("f", DataType::kFloat32, 1)}, 1 << 20).size() == 2);
}

TEST_CASE("different reduce ops, scale factors or op types do not fuse") {
  auto a = single("a", DataType::kFloat32, 1);
  auto b = single("b", DataType::kFloat32, 1, OpType::kAllreduce, ReduceOp::kMax);
  auto c = single("c", DataType::kFloat32, 1);
  c.postscale = 0.5;
  auto d = single("d", DataType::kFloat32, 1, OpType::kReducescatter);
  auto e = single("e", DataType::kFloat32, 1, OpType::kReducescatter);
  auto out = plan_fusion({a, b, c, d, e}, 1 << 20);
  REQUIRE(out.size() == 4);
  CHECK(out[3].names == std::vector<std::string>{"d", "e"});
}
