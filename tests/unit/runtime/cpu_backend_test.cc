#include "runtime/comm/cpu_backend.h"

#include <doctest/doctest.h>

#include <map>

#include "hvd/error.h"
#include "tests/unit/runtime/env_map.h"

using namespace hvd;
using namespace hvd::detail;

namespace {
EnvLookup env(std::map<std::string, std::string> vars) { return hvd::test::env_map(std::move(vars)); }
std::string error_of(std::map<std::string, std::string> vars) {
  return hvd::test::error_of([&] { choose_cpu_backend(env(std::move(vars))); });
}
}  // namespace

TEST_CASE("builtin by default and under hvdrun; mpi under mpirun") {
  CHECK(choose_cpu_backend(env({})) == "builtin");
  CHECK(choose_cpu_backend(env({{"HVD_STORE_ADDR", "10.0.0.1:4000"}, {"HOROVOD_SIZE", "2"}})) == "builtin");
  CHECK(choose_cpu_backend(env({{"OMPI_COMM_WORLD_SIZE", "4"}})) == "mpi");
  // hvdrun's own workers inherit nothing from an outer mpirun unless both are there: hvdrun's store wins.
  CHECK(choose_cpu_backend(env({{"OMPI_COMM_WORLD_SIZE", "4"}, {"HVD_STORE_ADDR", "10.0.0.1:4000"}})) == "builtin");
}

TEST_CASE("HOROVOD_CONTROLLER and HOROVOD_CPU_OPERATIONS decide when set") {
  CHECK(choose_cpu_backend(env({{"HOROVOD_CONTROLLER", "mpi"}})) == "mpi");
  CHECK(choose_cpu_backend(env({{"HOROVOD_CPU_OPERATIONS", "MPI"}})) == "mpi");
  CHECK(choose_cpu_backend(env({{"HOROVOD_CONTROLLER", "gloo"}, {"OMPI_COMM_WORLD_SIZE", "2"}})) == "builtin");
  CHECK(choose_cpu_backend(env({{"HOROVOD_CONTROLLER", "mpi"}, {"HOROVOD_CPU_OPERATIONS", "mpi"}})) == "mpi");
}

TEST_CASE("contradictions and unknown values name the variables") {
  auto e = error_of({{"HOROVOD_CONTROLLER", "mpi"}, {"HOROVOD_CPU_OPERATIONS", "builtin"}});
  CHECK(e.find("HOROVOD_CONTROLLER=mpi") != std::string::npos);
  CHECK(e.find("HOROVOD_CPU_OPERATIONS=builtin") != std::string::npos);
  e = error_of({{"HOROVOD_CPU_OPERATIONS", "ccl"}});
  CHECK(e.find("HOROVOD_CPU_OPERATIONS='ccl'") != std::string::npos);
  CHECK(e.find("mpi or builtin") != std::string::npos);
}

TEST_CASE("the registry lists both backends; builtin is always built") {
  auto backends = cpu_backends();
  REQUIRE(backends.size() == 2);
  CHECK(backends[0].name == "builtin");
  CHECK(backends[0].built);
  CHECK(backends[1].name == "mpi");
  CHECK(backends[1].built == (backends[1].connect != nullptr));
}
