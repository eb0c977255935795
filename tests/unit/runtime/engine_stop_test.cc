// The engine's end alone (runtime/engine/failure/engine_stop.h): the coordinator's stop as the error ops fail with
// and as this rank's record, a stall recorded at once, a consequence deferred until an op fails with it.
#include "runtime/engine/failure/engine_stop.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include <string>

#include "hvd/error.h"

using namespace hvd;
using namespace hvd::detail;

namespace {

struct TempFile {
  TempFile() {
    char pattern[] = "/tmp/hvd-engine-stop-XXXXXX";
    dir = ::mkdtemp(pattern);
  }
  ~TempFile() {
    ::unlink(path().c_str());
    ::unlink((path() + ".pending").c_str());
    ::rmdir(dir.c_str());
  }
  std::string path() const { return dir + "/0.json"; }
  std::optional<FailureRecord> read() const {
    auto j = read_json_file(path());
    if (!j) return std::nullopt;
    return failure_record_from_json(*j);
  }
  std::string dir;
};

Topology topology(int rank, int size) {
  Topology t;
  t.rank = rank;
  t.size = size;
  t.hosts.assign(static_cast<std::size_t>(size), "h1");
  return t;
}

std::string message_of(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const Error& x) {
    return x.what();
  }
}

const Stop kStall{.code = StopCode::kStall,
                  .tensor = "wait",
                  .seconds = 3,
                  .waiting = {"allreduce 'wait' waited 3 s for rank 1 (h1)"}};

}  // namespace

TEST_CASE("another rank's hvd::shutdown(): ops fail naming it, and the consequence waits for an op to fail") {
  TempFile f;
  const Topology t = topology(0, 2);
  EngineStop stop(f.path(), t);
  CHECK_FALSE(stop.adopt({.code = StopCode::kShutdown, .rank = 1, .host = "h1"}, {1}));
  CHECK(stop.stopped());
  CHECK(message_of(stop.error()) == "hvd is shut down: rank 1 (h1) called hvd::shutdown()");
  stop.finish(stop.error(), false);
  CHECK_FALSE(f.read());  // nothing failed here yet
  stop.write_due_record();
  auto r = f.read();
  REQUIRE(r);
  CHECK(r->role == FailureRecord::Role::kConsequence);
  CHECK(r->blame == std::vector<int>{1});
  CHECK(r->reason == "hvd is shut down: rank 1 (h1) called hvd::shutdown()");
  REQUIRE(r->stop);
  CHECK(r->stop->code == StopCode::kShutdown);
}

TEST_CASE("this rank's own hvd::shutdown() records nothing") {
  TempFile f;
  const Topology t = topology(1, 2);
  EngineStop stop(f.path(), t);
  stop.adopt({.code = StopCode::kShutdown, .rank = 1, .host = "h1"}, {1});
  stop.finish(stop.error(), true);
  CHECK_FALSE(f.read());
}

TEST_CASE("a stall: the witness records a consequence with the stall, the stalled rank a cause, both at once") {
  TempFile witness_file, stalled_file;
  const Topology t0 = topology(0, 2), t1 = topology(1, 2);
  EngineStop witness(witness_file.path(), t0), stalled(stalled_file.path(), t1);
  CHECK(witness.adopt(kStall, {1}));
  CHECK(stalled.adopt(kStall, {1}));
  auto w = witness_file.read();
  REQUIRE(w);
  CHECK(w->role == FailureRecord::Role::kConsequence);
  CHECK(w->stall);
  CHECK(w->tensor == "wait");
  CHECK(w->reason ==
        "hvd is shut down: stalled for more than HOROVOD_STALL_SHUTDOWN_TIME_SECONDS=3 s, shutting "
        "down: allreduce 'wait' waited 3 s for rank 1 (h1)");
  auto s = stalled_file.read();
  REQUIRE(s);
  CHECK(s->role == FailureRecord::Role::kCause);
  CHECK_FALSE(s->stall);
  CHECK(s->reason == "stall: this rank did not submit 'wait', which the other ranks waited in");
  CHECK(s->details.size() == 2);
}

TEST_CASE("a lost peer under the data plane: a consequence of it, recorded at once when ops are in flight") {
  TempFile f;
  const Topology t = topology(0, 3);
  EngineStop stop(f.path(), t);
  auto lost = std::make_exception_ptr(
      Error(ErrorKind::kPeerLost, "recv: connection reset by peer, rank 2", {.peer = 2, .tensor = "grad"}));
  stop.finish(lost, true);
  auto r = f.read();
  REQUIRE(r);
  CHECK(r->blame == std::vector<int>{2});
  CHECK(r->tensor == "grad");
  REQUIRE(r->stop);
  CHECK(r->stop->code == StopCode::kPeerLost);
  CHECK(r->stop->rank == 2);
  // An elastic reset (membership) or this rank's own usage error records nothing.
  CHECK_FALSE(stop.record_for(std::make_exception_ptr(Error(ErrorKind::kMembership, "re-forming"))));
}

TEST_CASE("the coordinator's pending op is written when it changes") {
  TempFile f;
  const Topology t = topology(0, 2);
  EngineStop stop(f.path(), t);
  stop.note_pending(PendingOp{.op = "allreduce", .tensor = "grad", .missing = {1}});
  CHECK(read_json_file(f.path() + ".pending"));
  stop.note_pending(std::nullopt);
  CHECK_FALSE(read_json_file(f.path() + ".pending"));
}
