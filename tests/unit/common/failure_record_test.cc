#include "common/failure_record.h"

#include <doctest/doctest.h>
#include <unistd.h>

using namespace hvd;

TEST_CASE("a failure record survives its file, and a missing or torn file reads as none") {
  FailureRecord r;
  r.role = FailureRecord::Role::kConsequence;
  r.reason = "hvd is shut down: rank 1 (h2) called hvd::shutdown()";
  r.blame = {1};
  r.tensor = "grad";
  r.time_ms = 1234;
  char dir[] = "/tmp/hvd-record-test-XXXXXX";
  REQUIRE(::mkdtemp(dir));
  const std::string path = std::string(dir) + "/0.json";
  REQUIRE(write_json_file(path, to_json(r)));
  auto back = failure_record_from_json(*read_json_file(path));
  CHECK(back.role == FailureRecord::Role::kConsequence);
  CHECK(back.reason == r.reason);
  CHECK(back.blame == std::vector<int>{1});
  CHECK(back.time_ms == 1234);
  CHECK_FALSE(read_json_file(std::string(dir) + "/missing.json"));
  ::unlink(path.c_str());
  ::rmdir(dir);
}

TEST_CASE("torch's @record error file reads as a cause with its traceback and time") {
  auto j = nlohmann::json::parse(R"({"message": {"message": "ValueError: bad shard", "extraInfo": {
      "py_callstack": "Traceback (most recent call last):\n  File \"t.py\", line 3, in main\n    raise ValueError\nValueError: bad shard\n",
      "timestamp": "1700000000"}}})");
  auto r = record_from_torch_error_file(j);
  REQUIRE(r);
  CHECK(r->role == FailureRecord::Role::kCause);
  CHECK(r->reason == "ValueError: bad shard");
  CHECK(r->time_ms == 1700000000000);
  CHECK(r->details.back() == "ValueError: bad shard");
  CHECK_FALSE(record_from_torch_error_file(nlohmann::json::parse("[1]")));
}
