// read_elastic_config: off unless HOROVOD_ELASTIC says so; in an elastic job every variable hvdrun sets is checked,
// and a bad or missing one is named.
#include "runtime/elastic/elastic_config.h"

#include <doctest/doctest.h>

#include "tests/unit/runtime/env_map.h"

using namespace hvd;
using namespace hvd::detail;

namespace {
std::map<std::string, std::string> elastic_env() {
  return {{"HOROVOD_ELASTIC", "1"},
          {"HVD_WORKER_ID", "h1/0"},
          {"HVD_STORE_ADDR", "10.0.0.1:4000"},
          {"HVD_SECRET", "00ff"},
          {"HVD_ELASTIC_TIMEOUT", "30"}};
}
}  // namespace

TEST_CASE("elastic config: absent or 0 means a static job") {
  CHECK_FALSE(read_elastic_config(test::env_map({})));
  CHECK_FALSE(read_elastic_config(test::env_map({{"HOROVOD_ELASTIC", "0"}})));
}

TEST_CASE("elastic config: the worker name and timeout hvdrun set") {
  auto c = read_elastic_config(test::env_map(elastic_env()));
  REQUIRE(c);
  CHECK(c->worker_id == "h1/0");
  CHECK(c->timeout == std::chrono::seconds(30));
  auto env = elastic_env();
  env.erase("HVD_ELASTIC_TIMEOUT");
  CHECK(read_elastic_config(test::env_map(env))->timeout == std::chrono::seconds(600));
}

TEST_CASE("elastic config: a missing or bad variable is named") {
  for (const char* name : {"HVD_WORKER_ID", "HVD_STORE_ADDR", "HVD_SECRET"}) {
    auto env = elastic_env();
    env.erase(name);
    CHECK(test::error_of([&] { read_elastic_config(test::env_map(env)); }).find(name) != std::string::npos);
  }
  auto env = elastic_env();
  env["HVD_WORKER_ID"] = "h1";
  CHECK(test::error_of([&] { read_elastic_config(test::env_map(env)); }).find("HVD_WORKER_ID='h1'") !=
        std::string::npos);
  env = elastic_env();
  env["HVD_ELASTIC_TIMEOUT"] = "-5";
  CHECK(test::error_of([&] { read_elastic_config(test::env_map(env)); }).find("HVD_ELASTIC_TIMEOUT") !=
        std::string::npos);
}
