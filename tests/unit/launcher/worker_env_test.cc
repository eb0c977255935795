#include "launcher/plan/worker_env.h"

#include <doctest/doctest.h>

using hvd::launcher::EnvMap;
using hvd::launcher::forwarded_env;
using hvd::launcher::LaunchOptions;
using hvd::launcher::make_plan;
using hvd::launcher::parse_host_list;
using hvd::launcher::worker_env;

TEST_CASE("worker_env: the HOROVOD_* contract, store address and secret") {
  const auto plan = make_plan(parse_host_list("a:1,b:2"), 0);
  LaunchOptions options;
  const auto env = worker_env(plan.slots[2], plan.size(), options, "10.0.0.1:4000", "abcd", "");
  const EnvMap expected = {
      {"HOROVOD_RANK", "2"},       {"HOROVOD_SIZE", "3"},       {"HOROVOD_LOCAL_RANK", "1"},
      {"HOROVOD_LOCAL_SIZE", "2"}, {"HOROVOD_CROSS_RANK", "0"}, {"HOROVOD_CROSS_SIZE", "1"},
      {"HOROVOD_HOSTNAME", "b"},   {"PYTHONUNBUFFERED", "1"},   {"HVD_STORE_ADDR", "10.0.0.1:4000"},
      {"HVD_SECRET", "abcd"}};
  CHECK(env == expected);
}

TEST_CASE("worker_env: data address only when given; exports added") {
  const auto plan = make_plan(parse_host_list("a:2"), 0);
  LaunchOptions options;
  options.exports = {{"FOO", "bar"}, {"PYTHONUNBUFFERED", "0"}, {"EMPTY", ""}};
  const auto env = worker_env(plan.slots[0], plan.size(), options, "s:1", "ff", "192.0.2.1");
  CHECK(env.at("HVD_DATA_ADDR") == "192.0.2.1");
  CHECK(env.at("FOO") == "bar");
  CHECK(env.at("EMPTY").empty());
  CHECK(env.at("PYTHONUNBUFFERED") == "0");
  CHECK(env.at("HOROVOD_RANK") == "0");
}

TEST_CASE("worker_env: the contract wins over exports") {
  const auto plan = make_plan(parse_host_list("a:1"), 0);
  LaunchOptions options;
  options.exports = {{"HOROVOD_RANK", "7"}};  // parse_command_line refuses this; worker_env holds anyway
  CHECK(worker_env(plan.slots[0], 1, options, "s:1", "ff", "").at("HOROVOD_RANK") == "0");
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
  LaunchOptions options;
  options.plan = make_plan(parse_host_list("a:1,b:2"), 0);
  CHECK(default_omp_threads(options, bare) ==
        "OMP_NUM_THREADS=1 for every worker, as torchrun does (2 ranks share b); set OMP_NUM_THREADS (or -x "
        "OMP_NUM_THREADS=N) to choose");
  CHECK(options.exports == std::vector<std::pair<std::string, std::string>>{{"OMP_NUM_THREADS", "1"}});
  CHECK(default_omp_threads(options, bare).empty());  // now set by -x: said once, added once

  LaunchOptions alone;
  alone.plan = make_plan(parse_host_list("a:1,b:1"), 0);
  CHECK(default_omp_threads(alone, bare).empty());
  CHECK(alone.exports.empty());

  LaunchOptions user_set;
  user_set.plan = make_plan(parse_host_list("a:4"), 0);
  const char* with_omp[] = {"PATH=/usr/bin", "OMP_NUM_THREADS=3", nullptr};
  CHECK(default_omp_threads(user_set, with_omp).empty());
  CHECK(user_set.exports.empty());
  user_set.exports = {{"OMP_NUM_THREADS", "2"}};
  CHECK(default_omp_threads(user_set, bare).empty());
  CHECK(user_set.exports.size() == 1);
}
