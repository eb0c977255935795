// hvdrun's flags for Slurm and restarts: --launcher, the allocation as the default hosts, -H/-np checked
// against it, --max-restarts.
#include <doctest/doctest.h>

#include "common/error.h"
#include "launcher/cli/options.h"
#include "tests/unit/launcher/command_line.h"

using hvd::UsageError;
using hvd::launcher::HostSpec;
using hvd::launcher::LaunchOptions;
using Launcher = LaunchOptions::Launcher;

namespace {

const char* const kNoEnv[] = {nullptr};
const char* const kAllocation[] = {"SLURM_JOB_ID=12", "SLURM_JOB_NODELIST=h[1-2]", "SLURM_TASKS_PER_NODE=2(x2)",
                                   nullptr};

using hvd::test::parse;
using hvd::test::error_of;

}  // namespace

TEST_CASE("inside an allocation: srun and the allocation's nodes and tasks by default") {
  const auto options = parse({"./train"}, kAllocation);
  CHECK(options.launcher == Launcher::kSlurm);
  CHECK(options.slurm_job_id == "12");
  CHECK(options.hosts == std::vector<HostSpec>{{"", "h1", 2}, {"", "h2", 2}});
  CHECK(options.np == 4);
  CHECK(parse({"-np", "3", "./train"}, kAllocation).np == 3);
  CHECK(parse({"-H", "h2:1", "./train"}, kAllocation).hosts == std::vector<HostSpec>{{"", "h2", 1}});
}

TEST_CASE("outside an allocation: ssh, and --launcher slurm is refused") {
  CHECK(parse({"./train"}, kNoEnv).launcher == Launcher::kSsh);
  CHECK(error_of({"--launcher", "slurm", "./train"}, kNoEnv).starts_with("--launcher slurm: not inside a Slurm"));
  CHECK(error_of({"--launcher", "pbs", "./train"}, kNoEnv) == "--launcher 'pbs' is unknown; use ssh or slurm");
}

TEST_CASE("--launcher ssh inside an allocation ignores it") {
  const auto options = parse({"--launcher", "ssh", "-H", "h9:8", "./train"}, kAllocation);
  CHECK(options.launcher == Launcher::kSsh);
  CHECK(options.np == 8);
}

TEST_CASE("-H and -np inside an allocation must fit it") {
  CHECK(error_of({"-H", "h3:1", "./train"}, kAllocation).starts_with("-H h3:1: h3 is not a node of Slurm job 12"));
  CHECK(error_of({"-H", "h1:3", "./train"}, kAllocation).find("has 2 tasks on h1") != std::string::npos);
  CHECK(error_of({"-np", "5", "./train"}, kAllocation).starts_with("-np 5 but Slurm job 12 (h1:2, h2:2) has 4 tasks"));
}

TEST_CASE("--max-restarts") {
  CHECK(parse({"./train"}, kNoEnv).max_restarts == 0);
  CHECK(parse({"--max-restarts", "3", "./train"}, kNoEnv).max_restarts == 3);
  CHECK(error_of({"--max-restarts", "-1", "./train"}, kNoEnv).starts_with("--max-restarts -1: must be from 0"));
  CHECK(error_of({"--mpi", "--max-restarts", "1", "./train"}, kNoEnv).starts_with("--max-restarts does not apply"));
}
