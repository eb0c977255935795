// hvdrun --mpi's report from mpirun's stderr (launcher/mpi/mpirun_report.h): each rank's tagged lines, the rank
// mpirun names as the first failure (non-zero exit, signal), the others unknown; nothing named, mpirun's code.
#include "launcher/mpi/mpirun_report.h"

#include <doctest/doctest.h>
#include <signal.h>

using hvd::launcher::MpirunReport;
using hvd::launcher::Plan;

namespace {

Plan plan_of(int ranks) {
  Plan plan;
  for (int r = 0; r < ranks; ++r) {
    hvd::launcher::Slot slot;
    slot.host = r < 2 ? "h1" : "h2";
    plan.slots.push_back(slot);
  }
  return plan;
}

void feed(MpirunReport& report, std::initializer_list<const char*> lines) {
  for (const char* line : lines) report.on_line(line);
}

}  // namespace

TEST_CASE("mpirun names a rank's non-zero exit: it is the root cause, with its last stderr lines") {
  MpirunReport mpirun;
  feed(mpirun, {"[1,0]<stderr>:rank 0 waits", "[1,1]<stderr>:loading shard 7", "[1,1]<stderr>:bad [1,1]<stderr>:shard",
                "--------------------------------------------------------------------------",
                "mpirun detected that one or more processes exited with non-zero status, thus causing",
                "the job to be terminated. The first process to do so was:", "",
                "  Process name: [[3453,1],1]", "  Exit code:    3",
                "  Process name: [[3453,1],0]", "  Exit code:    9"});
  auto report = mpirun.finish(plan_of(3), 3, std::nullopt);
  auto j = report.to_json();
  CHECK(j["exit_code"] == 3);
  CHECK(j["root_cause"]["rank"] == 1);
  CHECK(j["root_cause"]["host"] == "h1");
  CHECK(j["root_cause"]["exit_code"] == 3);
  CHECK(j["root_cause"]["source"] == "stderr");
  CHECK(j["root_cause"]["details"] == nlohmann::json::array({"loading shard 7", "bad shard"}));
  CHECK(j["ranks"][0]["state"] == "unknown");
  CHECK(j["ranks"][2]["state"] == "unknown");
  CHECK(report.summary().find("Root cause (first observed failure):\n  rank 1 on h1 exited with code 3") !=
        std::string::npos);
}

TEST_CASE("mpirun names a rank killed by a signal, with its pid and node") {
  MpirunReport mpirun;
  feed(mpirun, {"[1,2]<stderr>:about to crash",
                "mpirun noticed that process rank 2 with PID 4242 on node h2 exited on signal 11 (Segmentation fault)."});
  auto j = mpirun.finish(plan_of(3), 139, std::nullopt).to_json();
  CHECK(j["exit_code"] == 139);
  CHECK(j["root_cause"]["rank"] == 2);
  CHECK(j["root_cause"]["signal"] == "SIGSEGV");
  CHECK(j["root_cause"]["pid"] == 4242);
  CHECK(j["root_cause"]["details"] == nlohmann::json::array({"about to crash"}));
}

TEST_CASE("mpirun names no rank: the report gives its code; success: every rank ok; a signal to hvdrun stops it") {
  MpirunReport mpirun;
  feed(mpirun, {"Primary job  terminated normally, but 1 process returned"});
  auto failed = mpirun.finish(plan_of(2), 3, std::nullopt);
  CHECK(failed.to_json()["root_cause"] == nullptr);
  CHECK(failed.verdict().exit_code == 3);
  CHECK(failed.summary() ==
        "hvdrun: the job failed (exit 3)\nRoot cause: none found; mpirun exited with code 3 and named no rank (its "
        "lines above say why)");
  auto ok = MpirunReport{}.finish(plan_of(2), 0, std::nullopt).to_json();
  CHECK(ok["outcome"] == "succeeded");
  CHECK(ok["ranks"][1]["state"] == "ok");
  auto stopped = MpirunReport{}.finish(plan_of(2), 1, SIGTERM);
  CHECK(stopped.verdict().exit_code == 143);
  CHECK(stopped.to_json()["outcome"] == "stopped");
}
