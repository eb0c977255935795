// libhvd's one cause-or-consequence rule (runtime/engine/failure/record_rule.h), which C++'s terminate handler and
// every framework module's Python hook go through: a consequence never hides a cause, an uncaught hvd error keeps
// the consequence the engine recorded (stall and stop included), another rank's fault makes one, and the odd one
// out of a mismatch is a cause.
#include <doctest/doctest.h>
#include <unistd.h>

#include <string>

#include "runtime/engine/failure/record_rule.h"

using namespace hvd;
using namespace hvd::detail;

namespace {

struct TempDir {
  TempDir() {
    char pattern[] = "/tmp/hvd-failure-rule-XXXXXX";
    dir = ::mkdtemp(pattern);
  }
  ~TempDir() {
    for (const char* f : {"/0.json", "/0.json.pending"}) ::unlink((dir + f).c_str());
    ::rmdir(dir.c_str());
  }
  std::string path() const { return dir + "/0.json"; }
  std::string dir;
};

FailureRecord read(const std::string& path) { return failure_record_from_json(*read_json_file(path)); }

UncaughtException hvd_error(int peer, std::string tensor = "") {
  return {.source = "python",
          .type = "HorovodInternalError",
          .message = "hvd is shut down",
          .hvd_error = true,
          .peer = peer,
          .tensor = std::move(tensor)};
}

FailureRecord engine_consequence() {
  FailureRecord engine;
  engine.role = FailureRecord::Role::kConsequence;
  engine.blame = {2};
  engine.time_ms = 77;
  engine.tensor = "wait";
  return engine;
}

}  // namespace

TEST_CASE("a consequence does not replace a cause already recorded") {
  TempDir t;
  FailureRecord cause;
  cause.reason = "RuntimeError: boom";
  record_failure(t.path(), cause);
  FailureRecord later = engine_consequence();
  later.reason = "hvd is shut down";
  record_failure(t.path(), later);
  CHECK(read(t.path()).reason == "RuntimeError: boom");
  record_failure("", later);  // no file: nothing, no error
}

TEST_CASE("an uncaught hvd error keeps the engine's consequence: blame, time, tensor, stall and stop") {
  TempDir t;
  FailureRecord engine = engine_consequence();
  engine.stall = true;
  engine.stop = Stop{.code = StopCode::kStall, .tensor = "wait", .seconds = 3, .waiting = {"allreduce 'wait'"}};
  record_failure(t.path(), engine);
  record_uncaught(t.path(), 0, hvd_error(-1));
  auto r = read(t.path());
  CHECK(r.role == FailureRecord::Role::kConsequence);
  CHECK(r.blame == std::vector<int>{2});
  CHECK(r.time_ms == 77);
  CHECK(r.tensor == "wait");
  CHECK(r.stall);
  REQUIRE(r.stop);
  CHECK(r.stop->code == StopCode::kStall);
  CHECK(r.stop->waiting == std::vector<std::string>{"allreduce 'wait'"});
  CHECK(r.reason == "HorovodInternalError: hvd is shut down");
  CHECK(r.source == "python");
}

TEST_CASE("an hvd error that names its peer is a consequence of it, with the error's tensor") {
  TempDir t;
  record_uncaught(t.path(), 0, hvd_error(1, "x"));
  auto r = read(t.path());
  CHECK(r.role == FailureRecord::Role::kConsequence);
  CHECK(r.blame == std::vector<int>{1});
  CHECK(r.tensor == "x");
  CHECK_FALSE(r.stall);
}

TEST_CASE("a mismatch's odd one out is a cause, whatever the engine recorded before") {
  TempDir t;
  record_failure(t.path(), engine_consequence());
  record_uncaught(t.path(), 1, hvd_error(1, "x"));
  auto r = read(t.path());
  CHECK(r.role == FailureRecord::Role::kCause);
  CHECK(r.blame.empty());
  CHECK(r.tensor == "x");
}

TEST_CASE("any other exception is a cause, its frames and further lines in the details") {
  TempDir t;
  record_failure(t.path(), engine_consequence());
  record_uncaught(t.path(), 0,
                  {.source = "python",
                   .type = "RuntimeError",
                   .message = "boom\nsecond line",
                   .frames = {"  File \"t.py\", line 3, in main\n    load()\n"}});
  auto r = read(t.path());
  CHECK(r.role == FailureRecord::Role::kCause);
  CHECK(r.reason == "RuntimeError: boom");
  CHECK(r.details == std::vector<std::string>{"  File \"t.py\", line 3, in main", "    load()", "second line"});
  CHECK(describe_uncaught({.type = "KeyboardInterrupt"}).reason == "KeyboardInterrupt");
}

TEST_CASE("the pending op goes to <file>.pending and nullopt removes it") {
  TempDir t;
  PendingOp p;
  p.op = "allreduce";
  p.tensor = "grad";
  p.missing = {2};
  record_pending(t.path(), p);
  auto back = pending_op_from_json(*read_json_file(t.path() + ".pending"));
  CHECK(back.tensor == "grad");
  CHECK(back.missing == std::vector<int>{2});
  record_pending(t.path(), std::nullopt);
  CHECK_FALSE(read_json_file(t.path() + ".pending"));
}
