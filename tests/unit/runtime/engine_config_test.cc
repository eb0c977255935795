#include <doctest/doctest.h>

#include <map>

#include "hvd/error.h"
#include "runtime/comm/config.h"
#include "tests/unit/runtime/env_map.h"

using namespace hvd;
using namespace hvd::detail;

namespace {
EnvLookup env(std::map<std::string, std::string> vars) { return hvd::test::env_map(std::move(vars)); }
std::string error_of(std::map<std::string, std::string> vars) {
  return hvd::test::error_of([&] { read_config(env(std::move(vars))); });
}
}  // namespace

TEST_CASE("defaults are Horovod's") {
  auto c = read_config(env({}));
  CHECK(c.fusion_threshold == 128u << 20);
  CHECK(c.cache_capacity == 1024);
  CHECK(c.stall_check_time.count() == 60);
  CHECK(c.stall_shutdown_time.count() == 0);
}

TEST_CASE("values parse; bad ones name the variable and the value") {
  auto c = read_config(env({{"HOROVOD_FUSION_THRESHOLD", "0"}, {"HOROVOD_CYCLE_TIME", "2.5"}}));
  CHECK(c.fusion_threshold == 0);
  CHECK(c.cycle_time.count() == 2500);
  CHECK(error_of({{"HOROVOD_FUSION_THRESHOLD", "12MB"}}).find("HOROVOD_FUSION_THRESHOLD='12MB'") != std::string::npos);
  CHECK(error_of({{"HOROVOD_CACHE_CAPACITY", "-1"}}).find("HOROVOD_CACHE_CAPACITY") != std::string::npos);
  CHECK(error_of({{"HOROVOD_LOG_LEVEL", "loud"}}).find("HOROVOD_LOG_LEVEL='loud'") != std::string::npos);
  CHECK(read_config(env({})).engine_overlap == EngineOverlap::kAuto);
  CHECK(read_config(env({{"HVD_ENGINE_OVERLAP", "on"}})).engine_overlap == EngineOverlap::kOn);
  CHECK(read_config(env({{"HVD_ENGINE_OVERLAP", "off"}})).engine_overlap == EngineOverlap::kOff);
  CHECK(error_of({{"HVD_ENGINE_OVERLAP", "yes"}}) ==
        "bad HVD_ENGINE_OVERLAP='yes': expected auto (the default), on or off");
  CHECK(error_of({{"HOROVOD_STALL_CHECK_TIME_SECONDS", "10"}, {"HOROVOD_STALL_SHUTDOWN_TIME_SECONDS", "5"}})
            .find("must not be below") != std::string::npos);
}

TEST_CASE("placement") {
  auto p = read_placement(env({}));
  CHECK_FALSE(p.from_launcher);
  CHECK(p.size == 1);
  p = read_placement(env({{"HOROVOD_RANK", "2"},
                          {"HOROVOD_SIZE", "4"},
                          {"HOROVOD_LOCAL_RANK", "0"},
                          {"HOROVOD_LOCAL_SIZE", "2"},
                          {"HOROVOD_HOSTNAME", "h2"}}));
  CHECK(p.rank == 2);
  CHECK(p.local_size == 2);
  CHECK(p.hostname == "h2");
  CHECK_THROWS_AS(read_placement(env({{"HOROVOD_RANK", "4"}, {"HOROVOD_SIZE", "4"}})), Error);
  CHECK_THROWS_AS(read_placement(env({{"HOROVOD_RANK", "0"}})), Error);
}
