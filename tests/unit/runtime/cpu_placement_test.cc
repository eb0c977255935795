// HVD_CPU_BIND's decision (runtime/comm/shm/cpu_binding.h): which CPUs each local rank may use.
#include <doctest/doctest.h>

#include "runtime/comm/shm/cpu_binding.h"

using namespace hvd::detail;

namespace {
const std::vector<int> kTwo{0, 1};
const std::vector<int> kEight{0, 1, 2, 3, 4, 5, 6, 7};
}  // namespace

TEST_CASE("CPU placement auto: a share that holds the rank's busy threads is bound, in CPU order") {
  auto p = decide_cpu_placement(kTwo, 1, 2, CpuBind::kAuto, 1);  // no framework: the caller's thread alone
  CHECK(p.bound);
  CHECK(p.cpus == std::vector<int>{1});
  CHECK(p.why == "HVD_CPU_BIND=auto: 1 busy thread fit a share of 1 CPU(s)");
  p = decide_cpu_placement(kEight, 1, 2, CpuBind::kAuto, 2);  // one torch thread and the engine's
  CHECK(p.bound);
  CHECK(p.cpus == std::vector<int>{4, 5, 6, 7});
}

TEST_CASE("CPU placement auto: busy threads are never squeezed onto fewer CPUs; the rank keeps every CPU") {
  auto p = decide_cpu_placement(kTwo, 0, 2, CpuBind::kAuto, 2);
  CHECK_FALSE(p.bound);
  CHECK(p.cpus == kTwo);
  CHECK(p.why == "HVD_CPU_BIND=auto: a share of 1 CPU(s) is too few for 2 busy threads");
  CHECK_FALSE(decide_cpu_placement(kEight, 3, 4, CpuBind::kAuto, 3).bound);
}

TEST_CASE("CPU placement cores: bound whenever each rank gets a CPU, whatever its threads") {
  auto p = decide_cpu_placement(kTwo, 0, 2, CpuBind::kCores, 5);
  CHECK(p.bound);
  CHECK(p.cpus == std::vector<int>{0});
  CHECK(p.why == "HVD_CPU_BIND=cores");
}

TEST_CASE("CPU placement: none, a lone rank and more ranks than CPUs are never bound") {
  CHECK(decide_cpu_placement(kTwo, 0, 2, CpuBind::kNone, 1).why == "HVD_CPU_BIND=none");
  CHECK_FALSE(decide_cpu_placement(kTwo, 0, 2, CpuBind::kNone, 1).bound);
  CHECK_FALSE(decide_cpu_placement(kTwo, 0, 1, CpuBind::kCores, 1).bound);
  auto p = decide_cpu_placement(kTwo, 3, 4, CpuBind::kCores, 1);
  CHECK_FALSE(p.bound);
  CHECK(p.cpus == kTwo);
  CHECK(p.why == "4 ranks share 2 CPUs");
}

TEST_CASE("CPU placement: busy threads are the framework's compute threads and the engine's, else one") {
  set_compute_threads_query(nullptr);
  CHECK(busy_threads() == 1);
  set_compute_threads_query([] { return 3; });
  CHECK(busy_threads() == 4);
  set_compute_threads_query([] { return 0; });
  CHECK(busy_threads() == 2);
  set_compute_threads_query(nullptr);
}

TEST_CASE("engine overlap auto: on only when every busy thread of the ranks sharing the CPUs has one") {
  // np=2 with one torch thread each on 2 CPUs (this machine's training loop): no spare CPU for the engines.
  auto d = decide_engine_overlap(EngineOverlap::kAuto, 2, 2, 2);
  CHECK_FALSE(d.overlap);
  CHECK(d.why == "HVD_ENGINE_OVERLAP=auto: no spare CPU, 2 ranks x 2 busy threads on 2 CPUs");
  // The same rank alone on its host, or bound to a share that holds its threads.
  d = decide_engine_overlap(EngineOverlap::kAuto, 2, 1, 2);
  CHECK(d.overlap);
  CHECK(d.why == "HVD_ENGINE_OVERLAP=auto: a CPU for every busy thread, 1 rank x 2 busy threads on 2 CPUs");
  CHECK(decide_engine_overlap(EngineOverlap::kAuto, 1, 1, 1).overlap);  // no framework, bound: hvd-bench
  CHECK_FALSE(decide_engine_overlap(EngineOverlap::kAuto, 8, 4, 3).overlap);
  CHECK(decide_engine_overlap(EngineOverlap::kAuto, 8, 4, 2).overlap);
}

TEST_CASE("engine overlap on and off: the user's choice, whatever the CPUs") {
  auto d = decide_engine_overlap(EngineOverlap::kOn, 1, 4, 3);
  CHECK(d.overlap);
  CHECK(d.why == "HVD_ENGINE_OVERLAP=on");
  d = decide_engine_overlap(EngineOverlap::kOff, 64, 1, 1);
  CHECK_FALSE(d.overlap);
  CHECK(d.why == "HVD_ENGINE_OVERLAP=off");
}

TEST_CASE("CPU list: ranges as Cpus_allowed_list writes them") {
  CHECK(cpu_list({}).empty());
  CHECK(cpu_list({0}) == "0");
  CHECK(cpu_list({0, 1, 2, 3, 6, 8, 9}) == "0-3,6,8-9");
}
