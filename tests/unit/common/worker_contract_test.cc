#include "common/worker_contract.h"

#include <doctest/doctest.h>

#include "common/error.h"
#include "tests/unit/error_of.h"

using namespace hvd;

namespace {

env_var::Lookup lookup(const EnvMap& env) {
  return [env](const std::string& name) -> std::optional<std::string> {
    auto it = env.find(name);
    if (it == env.end()) return std::nullopt;
    return it->second;
  };
}

WorkerContract placed() {
  WorkerContract c;
  c.placement = WorkerPlacement{2, 3, 1, 2, 0, 1};
  c.hostname = "b";
  c.store_addr = "10.0.0.1:4000";
  c.secret_hex = "abcd";
  return c;
}

}  // namespace

TEST_CASE("write_worker_env: the placement, store address and secret, by Horovod's names") {
  EnvMap env;
  write_worker_env(placed(), env);
  const EnvMap expected = {
      {"HOROVOD_RANK", "2"},       {"HOROVOD_SIZE", "3"},       {"HOROVOD_LOCAL_RANK", "1"},
      {"HOROVOD_LOCAL_SIZE", "2"}, {"HOROVOD_CROSS_RANK", "0"}, {"HOROVOD_CROSS_SIZE", "1"},
      {"HOROVOD_HOSTNAME", "b"},   {"PYTHONUNBUFFERED", "1"},   {"HVD_STORE_ADDR", "10.0.0.1:4000"},
      {"HVD_SECRET", "abcd"}};
  CHECK(env == expected);
}

TEST_CASE("write_worker_env: exports after PYTHONUNBUFFERED, the contract over both; empty secret left out") {
  WorkerContract c = placed();
  c.secret_hex = "";
  c.data_addr = "192.0.2.1";
  c.exports = {{"FOO", "bar"}, {"PYTHONUNBUFFERED", "0"}, {"HOROVOD_RANK", "7"}};
  EnvMap env{{"HVD_SECRET", "from-the-agent"}, {"KEPT", "1"}};
  write_worker_env(c, env);
  CHECK(env.at("FOO") == "bar");
  CHECK(env.at("PYTHONUNBUFFERED") == "0");
  CHECK(env.at("HOROVOD_RANK") == "2");
  CHECK(env.at("HVD_SECRET") == "from-the-agent");
  CHECK(env.at("HVD_DATA_ADDR") == "192.0.2.1");
  CHECK(env.at("KEPT") == "1");
}

TEST_CASE("read_worker_contract reads back what write_worker_env wrote") {
  WorkerContract c = placed();
  c.data_addr = "192.0.2.1";
  c.elastic = ElasticWorker{"b/1", 30};
  EnvMap env;
  write_worker_env(c, env);
  const WorkerContract back = read_worker_contract(lookup(env));
  CHECK(back.placement == c.placement);
  CHECK(back.hostname == c.hostname);
  CHECK(back.store_addr == c.store_addr);
  CHECK(back.secret_hex == c.secret_hex);
  CHECK(back.data_addr == c.data_addr);
  REQUIRE(back.elastic);
  CHECK(back.elastic->worker_id == "b/1");
  CHECK(back.elastic->timeout_s == 30);
}

TEST_CASE("read_worker_contract: no HOROVOD_RANK, no placement; a partial or inconsistent one names the variable") {
  CHECK_FALSE(read_worker_contract(lookup({{"HOROVOD_SIZE", "2"}})).placement);
  const auto error = [](const EnvMap& env) {
    return test::error_of<UsageError>([&] { read_worker_contract(lookup(env)); });
  };
  CHECK(error({{"HOROVOD_RANK", "0"}}) == "HOROVOD_RANK is set but HOROVOD_SIZE is not: start workers with hvdrun");
  CHECK(error({{"HOROVOD_RANK", "2"}, {"HOROVOD_SIZE", "2"}}).find("HOROVOD_RANK") != std::string::npos);
  CHECK(error({{"HOROVOD_RANK", "0"}, {"HOROVOD_SIZE", "2"}, {"HOROVOD_LOCAL_SIZE", "3"}})
            .find("HOROVOD_LOCAL_SIZE") != std::string::npos);
  CHECK(error({{"HOROVOD_ELASTIC", "1"}, {"HVD_WORKER_ID", "h/0"}, {"HVD_STORE_ADDR", "h:1"}}) ==
        "HOROVOD_ELASTIC=1 but HVD_SECRET is not set (hvdrun sets it for elastic jobs: start them with hvdrun "
        "--min-np/--max-np, or unset HOROVOD_ELASTIC)");
}
