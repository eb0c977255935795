#include <doctest/doctest.h>

#include "runtime/engine/controller.h"

using namespace hvd;
using namespace hvd::detail;

namespace {
Request request(int rank, const std::string& name, std::string group = "", int group_size = 0) {
  Request q;
  q.rank = rank;
  q.name = name;
  q.shape = {2};
  q.group = std::move(group);
  q.group_size = group_size;
  return q;
}
RequestList list(std::vector<Request> v) { return RequestList{std::move(v), false}; }
const std::vector<std::string> kHosts = {"h1", "h2", "h1"};
}  // namespace

TEST_CASE("a tensor is ready once every rank submitted it; arrival order is kept; one response per tensor") {
  StallInspector stall(std::chrono::seconds(0), std::chrono::seconds(0), kHosts);
  Controller c(3, kHosts, stall);
  auto out = c.coordinate({list({request(0, "a"), request(0, "b")}), list({request(1, "b")}), list({})});
  CHECK(out.responses.empty());
  CHECK(c.pending() == 2);
  out = c.coordinate({list({}), list({request(1, "a")}), list({request(2, "b"), request(2, "a")})});
  REQUIRE(out.responses.size() == 2);  // every rank fuses them itself (engine, fusion.h)
  CHECK(out.responses[0].names == std::vector<std::string>{"a"});
  CHECK(out.responses[1].names == std::vector<std::string>{"b"});
  CHECK(c.pending() == 0);
}

TEST_CASE("joined ranks count as submitted; join completes when all joined") {
  StallInspector stall(std::chrono::seconds(0), std::chrono::seconds(0), kHosts);
  Controller c(3, kHosts, stall);
  Request join = request(0, "join");
  join.type = OpType::kJoin;
  auto out = c.coordinate({list({join}), list({request(1, "a")}), list({request(2, "a")})});
  REQUIRE(out.responses.size() == 1);
  CHECK(out.responses[0].names == std::vector<std::string>{"a"});
  Request j1 = join, j2 = join;
  j1.rank = 1;
  j2.rank = 2;
  out = c.coordinate({list({}), list({j1}), list({})});
  CHECK(out.responses.empty());
  out = c.coordinate({list({}), list({}), list({j2})});
  REQUIRE(out.responses.size() == 1);
  CHECK(out.responses[0].type == OpType::kJoin);
  CHECK(out.responses[0].last_joined_rank == 2);
}

TEST_CASE("a group goes only when all of its tensors are ready everywhere") {
  StallInspector stall(std::chrono::seconds(0), std::chrono::seconds(0), kHosts);
  Controller c(2, kHosts, stall);
  auto out =
      c.coordinate({list({request(0, "g.0", "g", 2), request(0, "g.1", "g", 2)}), list({request(1, "g.0", "g", 2)})});
  CHECK(out.responses.empty());
  out = c.coordinate({list({}), list({request(1, "g.1", "g", 2)})});
  CHECK(out.responses.size() == 2);  // one response each, same cycle
}

TEST_CASE("a mismatch fails that tensor only; shutdown from any rank is announced") {
  StallInspector stall(std::chrono::seconds(0), std::chrono::seconds(0), kHosts);
  Controller c(2, kHosts, stall);
  Request bad = request(1, "x");
  bad.dtype = DataType::kInt32;
  RequestList l1 = list({bad, request(1, "y")});
  l1.shutdown = true;
  auto out = c.coordinate({list({request(0, "x"), request(0, "y")}), l1});
  REQUIRE(out.responses.size() == 2);
  CHECK(out.responses[0].error.find("rank 1 (h2) sent int32, rank 0 (h1) sent float32") != std::string::npos);
  CHECK(out.responses[1].error.empty());
  CHECK(out.shutdown.code == hvd::StopCode::kShutdown);
  CHECK(describe(out.shutdown) == "rank 1 (h2) called hvd::shutdown()");
  // For the root-cause report: the odd rank is blamed for the mismatch, the caller for the shutdown.
  CHECK(out.responses[0].blame == std::vector<std::int64_t>{1});
  CHECK(out.shutdown_blame == std::vector<std::int64_t>{1});
}

TEST_CASE("stall inspector: warning names the missing ranks; shutdown time fails the tensor") {
  StallInspector stall(std::chrono::seconds(1), std::chrono::seconds(2), kHosts);
  Controller c(3, kHosts, stall);
  auto t0 = std::chrono::steady_clock::now();
  c.coordinate({list({request(0, "x")}), list({request(1, "x")}), list({})}, t0);
  auto out = c.coordinate({list({}), list({}), list({})}, t0 + std::chrono::milliseconds(1500));
  CHECK(out.responses.empty());
  CHECK_FALSE(out.stopping());
  out = c.coordinate({list({}), list({}), list({})}, t0 + std::chrono::seconds(3));
  REQUIRE(out.responses.size() == 1);
  CHECK(out.responses[0].error.find("allreduce 'x' waited 3 s for rank 2 (h1)") != std::string::npos);
  CHECK(out.shutdown.code == hvd::StopCode::kStall);
  CHECK(out.responses[0].error == describe(out.shutdown));
  CHECK(describe(out.shutdown) ==
        "stalled for more than HOROVOD_STALL_SHUTDOWN_TIME_SECONDS=2 s, shutting down:\n  allreduce 'x' waited 3 s "
        "for rank 2 (h1)");
  CHECK(out.responses[0].blame == std::vector<std::int64_t>{2});
  CHECK(out.shutdown_blame == std::vector<std::int64_t>{2});
  CHECK(out.shutdown.tensor == "x");
}

TEST_CASE("a process set's controller blames ranks by their job ranks: set [0, 2], place 1 is rank 2") {
  const RankNames names({"h1", "h1"}, {0, 2});
  StallInspector stall(std::chrono::seconds(1), std::chrono::seconds(2), names);
  Controller c(2, names, stall);
  Request bad = request(1, "x");
  bad.dtype = DataType::kInt32;
  auto out = c.coordinate({list({request(0, "x")}), list({bad})});
  REQUIRE(out.responses.size() == 1);
  CHECK(out.responses[0].error.find("rank 2 (h1) sent int32, rank 0 (h1) sent float32") != std::string::npos);
  CHECK(out.responses[0].blame == std::vector<std::int64_t>{2});
  auto t0 = std::chrono::steady_clock::now();
  c.coordinate({list({request(0, "y")}), list({})}, t0);
  out = c.coordinate({list({}), list({})}, t0 + std::chrono::seconds(3));
  REQUIRE(out.responses.size() == 1);
  CHECK(out.responses[0].blame == std::vector<std::int64_t>{2});  // the stalled rank, as hvd.rank() names it
  CHECK(out.shutdown_blame == std::vector<std::int64_t>{1});      // the engine's own numbering, on the wire
}

TEST_CASE("the oldest pending op names its missing ranks, once it is older than asked") {
  StallInspector stall(std::chrono::seconds(0), std::chrono::seconds(0), kHosts);
  Controller c(3, kHosts, stall);
  auto t0 = std::chrono::steady_clock::now();
  c.coordinate({list({request(0, "x")}), list({}), list({request(2, "x")})}, t0);
  CHECK_FALSE(c.oldest_pending(t0 - std::chrono::seconds(1)));
  auto p = c.oldest_pending(t0);
  REQUIRE(p);
  CHECK(p->tensor == "x");
  CHECK(p->op == "allreduce");
  CHECK(p->missing == std::vector<int>{1});
}
