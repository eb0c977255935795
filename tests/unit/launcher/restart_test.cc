#include "launcher/session/restart.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using hvd::launcher::SessionOptions;
using hvd::launcher::run_with_restarts;
using hvd::launcher::should_restart;

namespace {

std::string attempt_of(const SessionOptions& options) {
  std::string value = "unset";
  for (const auto& [name, v] : options.exports) {
    if (name == "HOROVOD_RESTART_ATTEMPT") value = v;
  }
  return value;
}

}  // namespace

TEST_CASE("failures restart; success, bad input and stop signals do not") {
  CHECK_FALSE(should_restart(0));
  CHECK_FALSE(should_restart(2));
  CHECK_FALSE(should_restart(129));
  CHECK_FALSE(should_restart(130));
  CHECK_FALSE(should_restart(143));
  CHECK(should_restart(1));
  CHECK(should_restart(3));
  CHECK(should_restart(4));
  CHECK(should_restart(137));
  CHECK(should_restart(139));
}

TEST_CASE("a failing job runs max_restarts + 1 times, each attempt numbered") {
  SessionOptions options;
  options.max_restarts = 2;
  options.exports = {{"HOROVOD_RESTART_ATTEMPT", "9"}, {"KEEP", "1"}};
  std::vector<std::string> attempts;
  const int code = run_with_restarts(options, [&](const SessionOptions& attempt) {
    attempts.push_back(attempt_of(attempt));
    CHECK(attempt.exports.front() == std::pair<std::string, std::string>{"KEEP", "1"});
    return 7;
  });
  CHECK(code == 7);
  CHECK(attempts == std::vector<std::string>{"0", "1", "2"});
}

TEST_CASE("restarts stop at the first success or at a stop signal") {
  SessionOptions options;
  options.max_restarts = 5;
  int runs = 0;
  CHECK(run_with_restarts(options, [&](const SessionOptions&) { return ++runs < 2 ? 1 : 0; }) == 0);
  CHECK(runs == 2);
  runs = 0;
  CHECK(run_with_restarts(options, [&](const SessionOptions&) { return ++runs, 143; }) == 143);
  CHECK(runs == 1);
  options.max_restarts = 0;
  runs = 0;
  CHECK(run_with_restarts(options, [&](const SessionOptions& a) { return ++runs, attempt_of(a) == "0" ? 1 : 0; }) == 1);
  CHECK(runs == 1);
}
