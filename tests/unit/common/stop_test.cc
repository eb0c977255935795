// Why a job stopped, as a code (common/stop.h): its JSON name both ways, and the one place its words come from.
#include "common/stop.h"

#include <doctest/doctest.h>

#include "common/failure_record.h"

using namespace hvd;

TEST_CASE("every stop code reads back from its name; an unknown name is none") {
  for (auto code : {StopCode::kNone, StopCode::kShutdown, StopCode::kStall, StopCode::kPeerLost,
                    StopCode::kElasticReset, StopCode::kReform}) {
    CHECK(stop_code_named(stop_code_name(code)) == code);
  }
  CHECK(stop_code_name(StopCode::kStall) == "stall");
  CHECK(stop_code_named("no such stop") == StopCode::kNone);
}

TEST_CASE("a stop's words come from its code and facts") {
  CHECK(describe({.code = StopCode::kShutdown, .rank = 1, .host = "h2"}) == "rank 1 (h2) called hvd::shutdown()");
  CHECK(shut_down_message({.code = StopCode::kShutdown, .rank = 1, .host = "h2"}) ==
        "hvd is shut down: rank 1 (h2) called hvd::shutdown()");
  const Stop stall{.code = StopCode::kStall,
                   .tensor = "wait",
                   .seconds = 3,
                   .waiting = {"allreduce 'wait' waited 3 s for rank 1 (h1)", "... and 2 more"}};
  CHECK(describe(stall) ==
        "stalled for more than HOROVOD_STALL_SHUTDOWN_TIME_SECONDS=3 s, shutting down:\n"
        "  allreduce 'wait' waited 3 s for rank 1 (h1)\n  ... and 2 more");
  CHECK(stalled_rank_reason(stall) == "stall: this rank did not submit 'wait', which the other ranks waited in");
  CHECK(describe({.code = StopCode::kPeerLost, .rank = 3}) == "lost rank 3");
  CHECK(describe({.code = StopCode::kPeerLost, .rank = 3, .detail = "recv: connection reset"}) ==
        "recv: connection reset");
  CHECK(describe({.code = StopCode::kElasticReset}) == "the runtime is being reset (hvd::elastic::reset)");
  CHECK(describe({.code = StopCode::kElasticReset, .process_sets = true}) ==
        "the runtime is being reset (hvd::elastic::reset); process sets are dropped");
  CHECK(describe({.code = StopCode::kReform, .event = 4}) ==
        "hvdrun is re-forming the job (elastic event 4: a worker failed or a host was lost); hvd::elastic::run "
        "resets and goes on from the last commit");
  CHECK(describe({.code = StopCode::kReform, .event = 4, .process_sets = true}) ==
        "hvdrun is re-forming the job; process sets are dropped at the reset");
}

TEST_CASE("a failure record carries its stop through JSON; a record without one has none") {
  FailureRecord r;
  r.role = FailureRecord::Role::kConsequence;
  r.stop = Stop{.code = StopCode::kStall, .tensor = "wait", .seconds = 3, .waiting = {"allreduce 'wait'"}};
  auto j = to_json(r);
  CHECK(j["stop"]["code"] == "stall");
  auto back = failure_record_from_json(j);
  REQUIRE(back.stop);
  CHECK(back.stop->code == StopCode::kStall);
  CHECK(back.stop->tensor == "wait");
  CHECK(back.stop->seconds == 3);
  CHECK(back.stop->waiting == std::vector<std::string>{"allreduce 'wait'"});
  CHECK_FALSE(failure_record_from_json(to_json(FailureRecord{})).stop);
}
