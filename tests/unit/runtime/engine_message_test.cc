// The engine's message helpers (runtime/engine/message.h): op names, reductions, shapes; the blame fields on the wire.
#include <doctest/doctest.h>

#include <string>

#include "runtime/engine/message.h"
#include "runtime/engine/wire.h"

using namespace hvd::detail;

TEST_CASE("message: every op type has its name; a value outside the enum reads as unknown") {
  CHECK(std::string(name_of(OpType::kAllreduce)) == "allreduce");
  CHECK(std::string(name_of(OpType::kAllgather)) == "allgather");
  CHECK(std::string(name_of(OpType::kBroadcast)) == "broadcast");
  CHECK(std::string(name_of(OpType::kAlltoall)) == "alltoall");
  CHECK(std::string(name_of(OpType::kReducescatter)) == "reducescatter");
  CHECK(std::string(name_of(OpType::kBarrier)) == "barrier");
  CHECK(std::string(name_of(OpType::kJoin)) == "join");
  CHECK(std::string(name_of(static_cast<OpType>(7))) == "unknown");
  CHECK(is_reduction(OpType::kReducescatter));
  CHECK_FALSE(is_reduction(OpType::kAllgather));
  CHECK(num_elements({2, 3, 4}) == 24);
  CHECK(shape_string({2, 3}) == "[2, 3]");
}

TEST_CASE("who is to blame survives the wire: a response's ranks at fault, the shutdown's ranks, stall and tensor") {
  ResponseList list;
  Response r;
  r.names = {"x"};
  r.error = "allreduce 'x': rank 2 (h2) sent shape [8], ranks 0, 1 (h1) sent shape [16]";
  r.error_kind = hvd::ErrorKind::kMismatch;
  r.blame = {2};
  list.responses.push_back(r);
  list.shutdown = {.code = hvd::StopCode::kStall, .tensor = "grad", .seconds = 3, .waiting = {"a", "b"}};
  list.shutdown_blame = {1, 3};
  auto back = decode_responses(encode(list));
  REQUIRE(back.responses.size() == 1);
  CHECK(back.responses[0].blame == std::vector<std::int64_t>{2});
  CHECK(back.shutdown_blame == std::vector<std::int64_t>{1, 3});
  CHECK(back.shutdown.code == hvd::StopCode::kStall);
  CHECK(back.shutdown.tensor == "grad");
  CHECK(back.shutdown.seconds == 3);
  CHECK(back.shutdown.waiting == std::vector<std::string>{"a", "b"});
  ResponseList reform;
  reform.shutdown = {.code = hvd::StopCode::kReform, .rank = 2, .host = "h2", .event = 9, .process_sets = true};
  auto again = decode_responses(encode(reform));
  CHECK(again.shutdown.rank == 2);
  CHECK(again.shutdown.host == "h2");
  CHECK(again.shutdown.event == 9);
  CHECK(again.shutdown.process_sets);
}
