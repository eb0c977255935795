// What libhvd leaves for hvdrun's report (runtime/engine/failure_file.h): a consequence never hides a cause, an
// uncaught hvd error keeps the consequence the engine recorded, and another rank's fault makes one.
#include "runtime/engine/failure_file.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include <string>

using namespace hvd;
using namespace hvd::detail;

namespace {

struct TempDir {
  TempDir() {
    char pattern[] = "/tmp/hvd-failure-file-XXXXXX";
    dir = ::mkdtemp(pattern);
  }
  ~TempDir() {
    for (const char* f : {"/0.json", "/0.json.pending"}) ::unlink((dir + f).c_str());
    ::rmdir(dir.c_str());
  }
  std::string dir;
};

FailureRecord read(const std::string& path) { return failure_record_from_json(*read_json_file(path)); }

}  // namespace

TEST_CASE("a consequence does not replace a cause already recorded") {
  TempDir t;
  const std::string path = t.dir + "/0.json";
  FailureRecord cause;
  cause.reason = "RuntimeError: boom";
  record_failure(path, cause);
  FailureRecord later;
  later.role = FailureRecord::Role::kConsequence;
  later.reason = "hvd is shut down";
  record_failure(path, later);
  CHECK(read(path).reason == "RuntimeError: boom");
  record_failure("", later);  // no file: nothing, no error
}

TEST_CASE("an uncaught hvd error keeps the engine's consequence; another rank's fault makes one") {
  TempDir t;
  const std::string path = t.dir + "/0.json";
  FailureRecord engine;
  engine.role = FailureRecord::Role::kConsequence;
  engine.blame = {2};
  engine.time_ms = 77;
  record_failure(path, engine);
  FailureRecord thrown;
  thrown.reason = "hvd::Error: hvd is shut down";
  Error shut_down(ErrorKind::kInternal, "hvd is shut down");
  record_uncaught(path, 0, thrown, &shut_down);
  auto r = read(path);
  CHECK(r.role == FailureRecord::Role::kConsequence);
  CHECK(r.blame == std::vector<int>{2});
  CHECK(r.time_ms == 77);
  CHECK(r.reason == "hvd::Error: hvd is shut down");

  ::unlink(path.c_str());
  Error mismatch(ErrorKind::kMismatch, "allreduce 'x': rank 1 (h2) sent shape [8]", {.peer = 1, .tensor = "x"});
  record_uncaught(path, 0, thrown, &mismatch);
  CHECK(read(path).blame == std::vector<int>{1});
  record_uncaught(path, 1, thrown, &mismatch);  // the odd rank itself: a cause
  CHECK(read(path).role == FailureRecord::Role::kCause);
  record_uncaught(path, 0, thrown, nullptr);
  CHECK(read(path).role == FailureRecord::Role::kCause);
}

TEST_CASE("the pending op goes to <file>.pending and nullopt removes it") {
  TempDir t;
  const std::string path = t.dir + "/0.json";
  PendingOp p;
  p.op = "allreduce";
  p.tensor = "grad";
  p.missing = {2};
  record_pending(path, p);
  auto back = pending_op_from_json(*read_json_file(path + ".pending"));
  CHECK(back.tensor == "grad");
  CHECK(back.missing == std::vector<int>{2});
  record_pending(path, std::nullopt);
  CHECK_FALSE(read_json_file(path + ".pending"));
}
