#include <doctest/doctest.h>

#include "runtime/engine/validation.h"

using namespace hvd;
using namespace hvd::detail;

namespace {
const std::vector<std::string> kHosts = {"h1", "h2", "h1", "h2"};
Request request(int rank, DataType dtype = DataType::kFloat32, std::vector<std::int64_t> shape = {3, 4}) {
  Request q;
  q.rank = rank;
  q.name = "grad/fc1.weight";
  q.dtype = dtype;
  q.shape = std::move(shape);
  return q;
}
std::vector<const Request*> ptrs(const std::vector<Request>& v) {
  std::vector<const Request*> out;
  for (const auto& q : v) out.push_back(&q);
  return out;
}
}  // namespace

TEST_CASE("a dtype mismatch names the tensor, the op, the ranks and their hosts") {
  std::vector<Request> v = {request(0), request(1, DataType::kFloat16)};
  auto r = validate(ptrs(v), kHosts);
  CHECK(r.error ==
        "allreduce 'grad/fc1.weight': rank 1 (h2) sent float16, rank 0 (h1) sent float32; cast before "
        "the call");
}

TEST_CASE("minority first, ranks grouped") {
  std::vector<Request> v = {request(0), request(1), request(2), request(3, DataType::kFloat16)};
  auto r = validate(ptrs(v), kHosts);
  CHECK(r.error ==
        "allreduce 'grad/fc1.weight': rank 3 (h2) sent float16, ranks 0 (h1), 1 (h2), 2 (h1) sent "
        "float32; cast before the call");
}

TEST_CASE("shape, op, scale and root mismatches; alltoall splits laid out per rank") {
  std::vector<Request> v = {request(0), request(1, DataType::kFloat32, {3, 5})};
  CHECK(validate(ptrs(v), kHosts).error.find("rank 0 (h1) sent shape [3, 4]") != std::string::npos);
  v = {request(0), request(1)};
  v[1].reduce_op = ReduceOp::kMax;
  CHECK(validate(ptrs(v), kHosts).error.find("op max") != std::string::npos);
  v = {request(0), request(1)};
  v[0].prescale = 2;
  CHECK(validate(ptrs(v), kHosts).error.find("prescale_factor 2") != std::string::npos);
  v = {request(0), request(1)};
  for (auto& q : v) q.type = OpType::kBroadcast;
  v[1].root = 1;
  CHECK(validate(ptrs(v), kHosts).error.find("rank 1 (h2) named root 1") != std::string::npos);
  // Each rank's splits passed its own argument checks (argument_checks_test); none means equal parts.
  v = {request(0, DataType::kFloat32, {4}), request(1, DataType::kFloat32, {4})};
  for (auto& q : v) q.type = OpType::kAlltoall;
  auto ok = validate(ptrs(v), kHosts);
  CHECK(ok.error.empty());
  CHECK(ok.splits == std::vector<std::int64_t>{2, 2, 2, 2});
  v[1].splits = {1, 3};
  ok = validate(ptrs(v), kHosts);
  CHECK(ok.error.empty());
  CHECK(ok.splits == std::vector<std::int64_t>{2, 2, 1, 3});
}

TEST_CASE("allgather allows different first dimensions; with a joined rank it fails naming it, as Horovod's") {
  std::vector<Request> v = {request(0, DataType::kFloat32, {2, 4}), request(1, DataType::kFloat32, {5, 4})};
  for (auto& q : v) q.type = OpType::kAllgather;
  auto r = validate(ptrs(v), kHosts);
  CHECK(r.error.empty());
  CHECK(r.rank_rows == std::vector<std::int64_t>{2, 5});
  auto by = ptrs(v);
  by.push_back(nullptr);  // rank 2 joined
  r = validate(by, kHosts);
  CHECK(r.error_kind == ErrorKind::kUsage);
  CHECK(r.error.find("rank 2") != std::string::npos);
  CHECK(r.error.find("joined; allgather needs every rank") != std::string::npos);
  std::vector<Request> b = {request(0), request(1)};
  for (auto& q : b) q.type = OpType::kBroadcast;
  auto bby = ptrs(b);
  bby.push_back(nullptr);
  CHECK(validate(bby, kHosts).error.find("rank 2 (h1) joined; broadcast needs every rank") != std::string::npos);
  v[1].shape = {5, 3};
  CHECK(validate(ptrs(v), kHosts).error.find("after the first dimension") != std::string::npos);
}
