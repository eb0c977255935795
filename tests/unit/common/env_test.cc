#include "common/env.h"

#include <doctest/doctest.h>
#include <stdlib.h>

#include <map>

#include "common/error.h"

using namespace hvd;

namespace {

env_var::Lookup vars(std::map<std::string, std::string> m) {
  return [m = std::move(m)](const std::string& n) -> std::optional<std::string> {
    auto it = m.find(n);
    if (it == m.end()) return std::nullopt;
    return it->second;
  };
}

// The UsageError a call throws; fails the test when it throws none.
template <typename F>
UsageError usage_error_of(F&& call) {
  try {
    call();
  } catch (const UsageError& e) {
    return e;
  }
  FAIL("no UsageError thrown");
  return UsageError("");
}

}  // namespace

TEST_CASE("unset variables read as nullopt; set ones as typed values") {
  auto env = vars({{"N", "42"}, {"R", "2.5"}, {"T", ""}, {"ON", "yes"}, {"OFF", "0"}});
  CHECK_FALSE(env_var::integer(env, "MISSING").has_value());
  CHECK_FALSE(env_var::text(env, "MISSING").has_value());
  CHECK_FALSE(env_var::flag(env, "MISSING").has_value());
  CHECK(env_var::integer(env, "N", env_var::between(1, 100)) == 42);
  CHECK(env_var::real(env, "R", {.min = 0, .max = 10, .expected = ""}) == doctest::Approx(2.5));
  CHECK(env_var::text(env, "T") == "");
  CHECK(env_var::flag(env, "ON") == true);
  CHECK(env_var::flag(env, "OFF") == false);
  CHECK(env_var::flag(env, "T") == false);
}

TEST_CASE("a bad value names the variable, the value and the range, as a usage error") {
  auto env = vars({{"HOROVOD_SIZE", "0"}, {"HOROVOD_RANK", "3x"}, {"HOROVOD_CYCLE_TIME", "fast"}});
  auto e = usage_error_of([&] { env_var::integer(env, "HOROVOD_SIZE", env_var::between(1, 8)); });
  CHECK(std::string(e.what()) == "bad HOROVOD_SIZE='0': expected an integer from 1 to 8");
  CHECK(e.kind() == ErrorKind::kUsage);
  e = usage_error_of([&] { env_var::integer(env, "HOROVOD_RANK", env_var::at_least(0, "a rank")); });
  CHECK(std::string(e.what()) == "bad HOROVOD_RANK='3x': expected a rank");
  e = usage_error_of([&] { env_var::real(env, "HOROVOD_CYCLE_TIME", {.min = 0, .max = 1, .expected = "ms"}); });
  CHECK(std::string(e.what()) == "bad HOROVOD_CYCLE_TIME='fast': expected ms");
  e = usage_error_of([] { env_var::parse_integer("X", "99999999999999999999999"); });
  CHECK(std::string(e.what()).find("bad X='99999999999999999999999'") == 0);
}

TEST_CASE("required names the variable and the fix when unset or empty") {
  auto env = vars({{"EMPTY", ""}, {"SET", "v"}});
  CHECK(env_var::required(env, "SET", "set it") == "v");
  CHECK(std::string(usage_error_of([&] { env_var::required(env, "EMPTY", "start it under hvdrun"); }).what()) ==
        "EMPTY is not set: start it under hvdrun");
  CHECK(std::string(usage_error_of([&] { env_var::required(env, "GONE", "x"); }).what()) == "GONE is not set: x");
}

TEST_CASE("the process environment is read through the same functions") {
  ::setenv("HVD_ENV_TEST_INT", "7", 1);
  ::unsetenv("HVD_ENV_TEST_UNSET");
  CHECK(env_var::integer("HVD_ENV_TEST_INT", env_var::at_least(0)) == 7);
  CHECK(env_var::text("HVD_ENV_TEST_INT") == "7");
  CHECK_FALSE(env_var::text("HVD_ENV_TEST_UNSET").has_value());
  CHECK(env_var::c_str(env_var::text("HVD_ENV_TEST_UNSET")) == nullptr);
  CHECK_THROWS_AS(env_var::integer("HVD_ENV_TEST_INT", env_var::at_least(8)), UsageError);
  ::unsetenv("HVD_ENV_TEST_INT");
}
