// What an agent adds to a worker's exit frame (agent/exit_reports.h): the record files' variables, hvd's record
// before torch's, the pending op, the last stderr lines; files read once and removed.
#include "agent/exit_reports.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "common/failure_record.h"

using hvd::agent::ExitReports;

TEST_CASE("a worker's record, pending op and stderr tail go into its exit frame, once") {
  std::string dir;
  {
    ExitReports reports;
    std::map<std::string, std::string> env;
    reports.add_env(3, env);
    REQUIRE(env.count(hvd::kEnvErrorFile));
    const std::string file = env[hvd::kEnvErrorFile];
    CHECK(env[hvd::kEnvTorchErrorFile] == file + ".torch");
    dir = std::filesystem::path(file).parent_path();
    std::ofstream(file + ".torch") << R"({"message": {"message": "ValueError: torch's", "extraInfo": {}}})";
    std::ofstream(file) << R"({"role": "cause", "reason": "RuntimeError: hvd's", "time_ms": 5})";
    std::ofstream(file + ".pending") << R"({"op": "allreduce", "tensor": "grad", "missing": [1]})";
    std::vector<std::string> lines;
    for (int i = 0; i < 15; ++i) lines.push_back("line " + std::to_string(i));
    reports.on_stderr(3, lines);

    hvd::messages::Exit exit;
    reports.fill(3, 1234, true, false, exit);
    CHECK(exit.time_ms == 1234);
    CHECK(exit.stopped);
    CHECK_FALSE(exit.outside);
    REQUIRE(exit.record);
    CHECK(exit.record->reason == "RuntimeError: hvd's");
    REQUIRE(exit.pending);
    CHECK(exit.pending->tensor == "grad");
    REQUIRE(exit.stderr_tail.size() == ExitReports::kStderrTail);
    CHECK(exit.stderr_tail.back() == "line 14");
    CHECK_FALSE(std::filesystem::exists(file));

    hvd::messages::Exit again;  // a worker started again under the same id reports nothing of its predecessor
    reports.fill(3, 1235, false, true, again);
    CHECK(again.outside);
    CHECK_FALSE(again.record);
    CHECK(again.stderr_tail.empty());

    std::ofstream(file + ".torch") << R"({"message": {"message": "ValueError: torch's", "extraInfo": {}}})";
    hvd::messages::Exit torch_only;
    reports.fill(3, 1236, false, false, torch_only);
    REQUIRE(torch_only.record);
    CHECK(torch_only.record->reason == "ValueError: torch's");
  }
  CHECK_FALSE(std::filesystem::exists(dir));  // the directory goes with the agent
}
