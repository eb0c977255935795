#include "launcher/plan/worker_env.h"

#include <doctest/doctest.h>

using hvd::launcher::EnvMap;
using hvd::launcher::forwarded_env;
using hvd::launcher::make_plan;
using hvd::launcher::parse_host_list;
using hvd::launcher::planned_contract;

TEST_CASE("planned_contract: a rank's placement and host from the plan") {
  const auto plan = make_plan(parse_host_list("a:1,b:2"), 0);
  const auto contract = planned_contract(plan.slots[2], plan.size());
  CHECK(contract.placement == hvd::WorkerPlacement{2, 3, 1, 2, 0, 1});
  CHECK(contract.hostname == "b");
  CHECK_FALSE(contract.store_addr);
  CHECK_FALSE(contract.secret_hex);
}

TEST_CASE("forwarded_env: documented names and prefixes, never the secret or the rank contract") {
  const char* environ_[] = {"PATH=/usr/bin:/bin",
                            "LD_LIBRARY_PATH=/opt/lib",
                            "HOME=/root",
                            "SSH_AUTH_SOCK=/tmp/agent",
                            "HOROVOD_FUSION_THRESHOLD=1024",
                            "HOROVOD_RANK=3",
                            "HVD_SECRET=deadbeef",
                            "HVD_STORE_ADDR=old:1",
                            "HVD_LOG=debug",
                            "NCCL_DEBUG=INFO",
                            "OMP_NUM_THREADS=4",
                            "MKL_NUM_THREADS=2",
                            "CUDA_VISIBLE_DEVICES=0,1",
                            "PYTHONPATH=/src",
                            "LANG=C.UTF-8",
                            "LC_ALL=C",
                            "PATHOLOGICAL=1",
                            "NO_EQUALS_SIGN",
                            "EQUALS=a=b",
                            nullptr};
  const EnvMap expected = {{"PATH", "/usr/bin:/bin"},
                           {"LD_LIBRARY_PATH", "/opt/lib"},
                           {"HOROVOD_FUSION_THRESHOLD", "1024"},
                           {"HVD_LOG", "debug"},
                           {"NCCL_DEBUG", "INFO"},
                           {"OMP_NUM_THREADS", "4"},
                           {"MKL_NUM_THREADS", "2"},
                           {"CUDA_VISIBLE_DEVICES", "0,1"},
                           {"PYTHONPATH", "/src"},
                           {"LANG", "C.UTF-8"},
                           {"LC_ALL", "C"}};
  CHECK(forwarded_env(environ_) == expected);
  CHECK(forwarded_env(nullptr).empty());
}

TEST_CASE("default_omp_threads: OMP_NUM_THREADS=1 when ranks share a host and nobody set it, said once") {
  using hvd::launcher::default_omp_threads;
  const char* bare[] = {"PATH=/usr/bin", nullptr};
  hvd::EnvExports exports;
  const auto shared = make_plan(parse_host_list("a:1,b:2"), 0).hosts;
  CHECK(default_omp_threads(exports, shared, bare) ==
        "OMP_NUM_THREADS=1 for every worker, as torchrun does (2 ranks share b); set OMP_NUM_THREADS (or -x "
        "OMP_NUM_THREADS=N) to choose");
  CHECK(exports == hvd::EnvExports{{"OMP_NUM_THREADS", "1"}});
  CHECK(default_omp_threads(exports, shared, bare).empty());  // now set by -x: said once, added once

  hvd::EnvExports alone;
  CHECK(default_omp_threads(alone, make_plan(parse_host_list("a:1,b:1"), 0).hosts, bare).empty());
  CHECK(alone.empty());

  hvd::EnvExports user_set;
  const auto four = make_plan(parse_host_list("a:4"), 0).hosts;
  const char* with_omp[] = {"PATH=/usr/bin", "OMP_NUM_THREADS=3", nullptr};
  CHECK(default_omp_threads(user_set, four, with_omp).empty());
  CHECK(user_set.empty());
  user_set = {{"OMP_NUM_THREADS", "2"}};
  CHECK(default_omp_threads(user_set, four, bare).empty());
  CHECK(user_set.size() == 1);
}
