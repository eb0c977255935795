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

    nlohmann::json frame;
    reports.fill(3, 1234, true, false, frame);
    CHECK(frame["time_ms"] == 1234);
    CHECK(frame["stopped"] == true);
    CHECK(frame["outside"] == false);
    CHECK(frame["record"]["reason"] == "RuntimeError: hvd's");
    CHECK(frame["pending"]["tensor"] == "grad");
    REQUIRE(frame["stderr_tail"].size() == ExitReports::kStderrTail);
    CHECK(frame["stderr_tail"].back() == "line 14");
    CHECK_FALSE(std::filesystem::exists(file));

    nlohmann::json again;  // a worker started again under the same id reports nothing of its predecessor
    reports.fill(3, 1235, false, true, again);
    CHECK(again["outside"] == true);
    CHECK_FALSE(again.contains("record"));
    CHECK_FALSE(again.contains("stderr_tail"));

    std::ofstream(file + ".torch") << R"({"message": {"message": "ValueError: torch's", "extraInfo": {}}})";
    nlohmann::json torch_only;
    reports.fill(3, 1236, false, false, torch_only);
    CHECK(torch_only["record"]["reason"] == "ValueError: torch's");
  }
  CHECK_FALSE(std::filesystem::exists(dir));  // the directory goes with the agent
}
