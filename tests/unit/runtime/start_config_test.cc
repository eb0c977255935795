#include <doctest/doctest.h>

#include <map>

#include "common/error.h"
#include "runtime/comm/config.h"
#include "tests/unit/runtime/env_map.h"

using namespace hvd;
using namespace hvd::detail;

namespace {
StartConfig start(std::map<std::string, std::string> vars) { return read_start_config(test::env_map(std::move(vars))); }
}  // namespace

TEST_CASE("StartConfig: unset means a job of one with no backend asked for") {
  auto s = start({});
  CHECK_FALSE(s.placement.from_launcher);
  CHECK(s.placement.size == 1);
  CHECK(s.controller.empty());
  CHECK(s.cpu_operations.empty());
  CHECK_FALSE(s.mpi_world_size.has_value());
  CHECK_FALSE(s.store_addr.has_value());
  CHECK(s.data_addr.empty());
  CHECK(s.cpu_bind == CpuBind::kAuto);
}

TEST_CASE("StartConfig: every variable is read once, typed") {
  auto s = start({{"HOROVOD_RANK", "1"},
                  {"HOROVOD_SIZE", "2"},
                  {"HOROVOD_HOSTNAME", "h2"},
                  {"HOROVOD_CONTROLLER", "Gloo"},
                  {"HOROVOD_CPU_OPERATIONS", "tcp"},
                  {"OMPI_COMM_WORLD_SIZE", "2"},
                  {"HVD_STORE_ADDR", "10.0.0.1:4000"},
                  {"HVD_SECRET", "abcd"},
                  {"HVD_DATA_ADDR", "10.0.0.2"},
                  {"HVD_CPU_BIND", "none"}});
  CHECK(s.placement.rank == 1);
  CHECK(s.placement.size == 2);
  CHECK(s.placement.hostname == "h2");
  CHECK(s.controller == "builtin");
  CHECK(s.cpu_operations == "builtin");
  CHECK(s.mpi_world_size == 2);
  CHECK(s.store_addr == "10.0.0.1:4000");
  CHECK(s.secret_hex == "abcd");
  CHECK(s.data_addr == "10.0.0.2");
  CHECK(s.cpu_bind == CpuBind::kNone);
  CHECK(start({{"HVD_CPU_BIND", "cores"}}).cpu_bind == CpuBind::kCores);
}

TEST_CASE("StartConfig: a bad value is a usage error naming the variable and the value") {
  auto message = [](std::map<std::string, std::string> vars) {
    try {
      start(std::move(vars));
    } catch (const UsageError& e) {
      CHECK(e.kind() == ErrorKind::kUsage);
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(message({{"OMPI_COMM_WORLD_SIZE", "four"}}) ==
        "bad OMPI_COMM_WORLD_SIZE='four': expected a positive rank count");
  CHECK(message({{"HOROVOD_CONTROLLER", "ccl"}}) == "bad HOROVOD_CONTROLLER='ccl': expected mpi or builtin");
  CHECK(message({{"HOROVOD_RANK", "0"}, {"HOROVOD_SIZE", "0"}}).find("bad HOROVOD_SIZE='0'") == 0);
  CHECK(message({{"HVD_CPU_BIND", "core"}}) == "HVD_CPU_BIND=core: use auto (the default), cores or none");
}
