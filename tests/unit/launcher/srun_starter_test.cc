#include "launcher/slurm/srun_starter.h"

#include <doctest/doctest.h>

using hvd::launcher::AgentStart;
using hvd::launcher::srun_command;

TEST_CASE("srun starts one agent per host, on those hosts, with the secret nowhere in the command") {
  AgentStart a;
  a.host = "h1";
  a.agent_path = "/opt/hvd bin/hvd-agent";
  a.coordinator_host = "198.51.100.10";
  a.coordinator_port = 4000;
  a.secret_hex = "feedface";
  AgentStart b = a;
  b.host = "h2";
  const auto argv = srun_command("srun", {a, b}, "42");
  const std::vector<std::string> expected = {
      "srun",
      "--jobid=42",
      "--job-name=hvd-agents",
      "--nodes=2",
      "--ntasks=2",
      "--ntasks-per-node=1",
      "--nodelist=h1,h2",
      "--overlap",
      "--cpu-bind=none",
      "--mpi=none",
      "--input=all",
      "--kill-on-bad-exit=0",
      "/bin/sh",
      "-c",
      "exec '/opt/hvd bin/hvd-agent' --coordinator 198.51.100.10:4000 --host \"$SLURMD_NODENAME\" --log-level "
      "warning"};
  CHECK(argv == expected);
  for (const auto& word : argv) CHECK(word.find("feedface") == std::string::npos);
}
