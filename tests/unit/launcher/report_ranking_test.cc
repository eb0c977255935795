#include <doctest/doctest.h>

#include <utility>

#include "launcher/report/job_report.h"
#include "launcher/report/ranking.h"

using hvd::FailureRecord;
using namespace hvd::launcher::report;

namespace {

// The report hears an exit as the session decodes it from the agent's frame.
void report_exit(JobReport& report, int rank, const nlohmann::json& frame) {
  report.exited(rank, hvd::messages::Exit::decode(frame));
}

RankEnding exited(int rank, std::int64_t time_ms, std::optional<int> code, std::optional<int> signal = {}) {
  RankEnding e;
  e.rank = rank;
  e.name = "rank " + std::to_string(rank);
  e.host = "h" + std::to_string(rank);
  e.pid = 100 + rank;
  e.state = RankEnding::State::kExited;
  e.code = code;
  e.signal = signal;
  e.time_ms = time_ms;
  return e;
}

FailureRecord record(FailureRecord::Role role, std::int64_t time_ms, std::vector<int> blame = {}) {
  FailureRecord r;
  r.role = role;
  r.reason = role == FailureRecord::Role::kCause ? "RuntimeError: boom" : "hvd is shut down";
  r.time_ms = time_ms;
  r.blame = std::move(blame);
  return r;
}

// Rank 0, stopped by the teardown, recorded that rank 2's link was lost; rank 1, told by rank 0, blames rank 0.
std::pair<RankEnding, RankEnding> rank1_blames_rank0_who_blames_rank2() {
  auto r0 = exited(0, 130, {}, 15);
  r0.stopped = true;
  r0.record = record(FailureRecord::Role::kConsequence, 106, {2});
  r0.record->reason = "hvd is shut down: receive from rank 2: Connection reset by peer";
  auto r1 = exited(1, 120, 1);
  r1.record = record(FailureRecord::Role::kConsequence, 105, {0});
  return {r0, r1};
}

JobFate failed_with(int code) {
  JobFate fate;
  fate.first_code = code;
  return fate;
}

}  // namespace

TEST_CASE("a job whose ranks all exit 0 succeeds with no root cause") {
  auto v = judge({exited(0, 10, 0), exited(1, 11, 0)}, {}, {});
  CHECK(v.outcome == Verdict::Outcome::kSucceeded);
  CHECK(v.exit_code == 0);
  CHECK_FALSE(v.root);
}

TEST_CASE("a consequence that exits first is not the root cause; the cause's code is the job's") {
  auto r0 = exited(0, 100, 1);
  r0.record = record(FailureRecord::Role::kConsequence, 95, {1});
  auto r1 = exited(1, 120, 3);  // exited later, failed on its own
  auto v = judge({r0, r1}, {}, failed_with(1));
  REQUIRE(v.root);
  CHECK(*v.root->rank == 1);
  CHECK(v.exit_code == 3);
  CHECK(v.consequences == std::vector<std::size_t>{0});
}

TEST_CASE("of two causes the earlier failure is named, not the earlier exit nor the lower rank") {
  auto r1 = exited(1, 100, 1);
  r1.record = record(FailureRecord::Role::kCause, 100);
  auto r2 = exited(2, 300, 7);  // failed at 50 but took long to exit
  r2.record = record(FailureRecord::Role::kCause, 50);
  r2.stopped = true;
  auto v = judge({exited(0, 110, 0, 15), r1, r2}, {}, failed_with(1));
  REQUIRE(v.root);
  CHECK(*v.root->rank == 2);
  CHECK(v.exit_code == 7);  // it exited on its own, though hvdrun had signalled it
}

TEST_CASE("ranks hvdrun stopped are consequences; a signal of its own is a cause with 128+N") {
  auto stopped = exited(0, 200, {}, 15);
  stopped.stopped = true;
  auto v = judge({stopped, exited(1, 100, {}, 11)}, {}, failed_with(139));
  REQUIRE(v.root);
  CHECK(*v.root->rank == 1);
  CHECK(v.exit_code == 139);
  CHECK(describe_ending(stopped) == "was stopped (SIGTERM from the job's teardown)");
}

TEST_CASE("with no cause, the rank the earliest consequence blames is the root cause, inferred") {
  auto r0 = exited(0, 100, 3);
  r0.record = record(FailureRecord::Role::kConsequence, 90, {2});
  auto r1 = exited(1, 101, 3);
  r1.record = record(FailureRecord::Role::kConsequence, 91, {2});
  auto r2 = exited(2, 150, {}, 15);
  r2.stopped = true;
  auto v = judge({r0, r1, r2}, {}, failed_with(3));
  REQUIRE(v.root);
  CHECK(*v.root->rank == 2);
  CHECK(v.root->inferred);
  CHECK(v.exit_code == 3);  // killed by hvdrun's teardown: not a code of its own
}

TEST_CASE("a lost host is the root cause when it came first, and the job exits 4") {
  auto r0 = exited(0, 300, 1);
  r0.record = record(FailureRecord::Role::kConsequence, 290, {1});
  RankEnding r1;
  r1.rank = 1;
  r1.host = "h1";
  r1.state = RankEnding::State::kLost;
  auto v = judge({r0, r1}, {{"h1", "link closed", 200}}, failed_with(1));
  REQUIRE(v.root);
  CHECK(v.root->host_loss == 0u);
  CHECK(v.exit_code == 4);
}

TEST_CASE("hvdrun stopped by a signal before anything failed keeps 128+N") {
  JobFate fate;
  fate.signal = 2;
  auto r0 = exited(0, 100, {}, 15);
  r0.stopped = true;
  auto v = judge({r0}, {}, fate);
  CHECK(v.outcome == Verdict::Outcome::kStopped);
  CHECK(v.exit_code == 130);
  CHECK_FALSE(v.root);
}

TEST_CASE("JobReport reads the agent's exit frame and renders text and JSON") {
  JobReport report;
  report.add_rank(0, "rank 0", "h1");
  report.add_rank(1, "rank 1", "h2");
  report.started(1, 4242);
  report_exit(report, 0, {{"type", "exit"},
                    {"rank", 0},
                    {"pid", 41},
                    {"code", 1},
                    {"time_ms", 1000},
                    {"record", {{"role", "consequence"}, {"reason", "hvd is shut down"}, {"blame", {1}}}}});
  report_exit(report, 1, {{"type", "exit"},
                    {"rank", 1},
                    {"pid", 4242},
                    {"code", 5},
                    {"time_ms", 2000},
                    {"stderr_tail", {"loading shard 7", "fatal: shard 7 is corrupt"}}});
  report.failed(1, "hvdrun: rank 0 on h1 (pid 41) exited with code 1");
  CHECK(report.verdict().exit_code == 5);
  const std::string text = report.summary();
  CHECK(text.find("Root cause (first observed failure):\n  rank 1 on h2 (pid 4242) exited with code 5") !=
        std::string::npos);
  CHECK(text.find("fatal: shard 7 is corrupt") != std::string::npos);
  CHECK(text.find("Consequences:\n  rank 0 on h1 (pid 41) exited with code 1: hvd is shut down") != std::string::npos);
  auto j = report.to_json();
  CHECK(j["outcome"] == "failed");
  CHECK(j["root_cause"]["rank"] == 1);
  CHECK(j["root_cause"]["source"] == "stderr");
  CHECK(j["ranks"][0]["role"] == "consequence");
  CHECK(j["ranks"][0]["blame"] == nlohmann::json::array({1}));
}

TEST_CASE("ranks stopped from outside are no causes, nor named by the ranks that failed because of them") {
  auto r0 = exited(0, 100, {}, 15);
  r0.outside = true;
  auto r1 = exited(1, 110, 1);
  r1.record = record(FailureRecord::Role::kConsequence, 105, {0});
  auto r2 = exited(2, 102, {}, 2);
  r2.outside = true;
  r2.record = record(FailureRecord::Role::kCause, 101);  // Python's KeyboardInterrupt on the way out
  auto v = judge({r0, r1, r2}, {}, failed_with(143));
  CHECK_FALSE(v.root);
  CHECK(v.outcome == Verdict::Outcome::kStopped);
  CHECK(v.exit_code == 143);  // the first failure hvdrun saw
  CHECK(v.other_causes.empty());
  CHECK(v.consequences == std::vector<std::size_t>{0, 2, 1});
  CHECK(describe_ending(r0) == "was stopped from outside the job (SIGTERM)");
}

TEST_CASE("a chain of blame that ends at a rank stopped from outside names no cause") {
  // scancel stops h2's rank 2 first; rank 0 meets its lost link and blames it, and rank 1, told by rank 0 through
  // their host's shared memory, blames rank 0, a millisecond earlier than rank 0 wrote its own record.
  auto [r0, r1] = rank1_blames_rank0_who_blames_rank2();
  auto r2 = exited(2, 100, {}, 15);
  r2.outside = true;
  auto v = judge({r0, r1, r2}, {}, failed_with(143));
  CHECK_FALSE(v.root);
  CHECK(v.outcome == Verdict::Outcome::kStopped);
  CHECK(v.exit_code == 143);
}

TEST_CASE("a job stopped from outside exits with the first stop's signal, not a consequence hvdrun heard of first") {
  auto r1 = exited(1, 101, 1);
  r1.record = record(FailureRecord::Role::kConsequence, 99, {2});
  auto r2 = exited(2, 102, {}, 15);
  r2.outside = true;
  auto r3 = exited(3, 103, {}, 9);
  r3.outside = true;
  auto v = judge({r1, r2, r3}, {}, failed_with(1));
  CHECK_FALSE(v.root);
  CHECK(v.outcome == Verdict::Outcome::kStopped);
  CHECK(v.exit_code == 143);
}

TEST_CASE("a chain of blame is followed to the rank at its end, named by the rank that blamed it") {
  auto [r0, r1] = rank1_blames_rank0_who_blames_rank2();
  auto r2 = exited(2, 131, {}, 15);
  r2.stopped = true;  // the teardown's, after it had stopped answering
  auto v = judge({r0, r1, r2}, {}, failed_with(1));
  REQUIRE(v.root);
  CHECK(*v.root->rank == 2);
  CHECK(v.root->inferred);
  CHECK(v.root->reason == "rank 0 failed because of it: hvd is shut down: receive from rank 2: Connection reset by peer");
  CHECK(v.consequences == std::vector<std::size_t>{1, 0});
}

TEST_CASE("a cycle of blame ends at the rank where it closes") {
  auto r0 = exited(0, 130, 1);
  r0.record = record(FailureRecord::Role::kConsequence, 106, {1});
  auto r1 = exited(1, 120, 1);
  r1.record = record(FailureRecord::Role::kConsequence, 105, {0});
  auto v = judge({r0, r1}, {}, failed_with(1));
  REQUIRE(v.root);
  CHECK(*v.root->rank == 1);
  CHECK(v.root->inferred);
}

TEST_CASE("a failure of its own among ranks stopped from outside is the root cause") {
  auto r0 = exited(0, 100, {}, 15);
  r0.outside = true;
  auto r1 = exited(1, 120, 3);
  auto v = judge({r0, r1}, {}, failed_with(143));
  REQUIRE(v.root);
  CHECK(*v.root->rank == 1);
  CHECK(v.outcome == Verdict::Outcome::kFailed);
  CHECK(v.exit_code == 3);
}

TEST_CASE("JobReport: a job stopped from outside says so, with the op its ranks waited in") {
  JobReport report;
  report.add_rank(0, "rank 0", "h1");
  report.add_rank(1, "rank 1", "h2");
  report_exit(report, 0, {{"type", "exit"},
                    {"rank", 0},
                    {"pid", 41},
                    {"signal", 15},
                    {"time_ms", 1000},
                    {"outside", true},
                    {"pending", {{"op", "allreduce"}, {"tensor", "grad"}, {"missing", {1}}, {"since_ms", 500}}}});
  report_exit(report, 1, {{"type", "exit"}, {"rank", 1}, {"pid", 42}, {"signal", 15}, {"time_ms", 1001}, {"outside", true}});
  report.failed(143, "hvdrun: rank 0 on h1 (pid 41) was stopped from outside the job (SIGTERM)");
  CHECK(report.verdict().exit_code == 143);
  const std::string text = report.summary();
  CHECK(text.find("hvdrun: the job was stopped from outside (exit 143)\n"
                  "Root cause: none; no rank failed on its own, they were stopped from outside the job (scancel, "
                  "kill)\nWaiting when the job ended: allreduce 'grad' for ") == 0);
  CHECK(text.find("missing rank 1 on h2 (pid 42)") != std::string::npos);
  CHECK(text.find("Ranks:\n  rank 0 on h1 (pid 41) was stopped from outside the job (SIGTERM)\n") != std::string::npos);
  auto j = report.to_json();
  CHECK(j["outcome"] == "stopped");
  CHECK(j["signal"] == nullptr);
  CHECK(j["root_cause"] == nullptr);
  CHECK(j["ranks"][1]["state"] == "stopped");
  CHECK(j["ranks"][1]["outside"] == true);
  CHECK(j["waiting"]["missing"][0]["host"] == "h2");
}

TEST_CASE("a stalled rank stopped before it recorded the stall is named with the stall, from the witness's record") {
  auto r0 = exited(0, 100, 1);
  r0.record = record(FailureRecord::Role::kConsequence, 90, {1});
  r0.record->stall = true;
  r0.record->tensor = "wait";
  // The witness's Python hook replaced the engine's words with its exception's; the stop's code and facts stay.
  r0.record->reason = "HorovodInternalError: hvd is shut down: stalled for more than ...";
  r0.record->stop = hvd::Stop{.code = hvd::StopCode::kStall,
                              .tensor = "wait",
                              .seconds = 3,
                              .waiting = {"allreduce 'wait' waited 3 s for rank 1"}};
  auto r1 = exited(1, 101, {}, 15);
  r1.stopped = true;
  auto v = judge({r0, r1}, {}, failed_with(1));
  REQUIRE(v.root);
  CHECK(*v.root->rank == 1);
  CHECK(v.root->inferred);
  CHECK(v.root->reason == "stall: this rank did not submit 'wait', which the other ranks waited in");
  CHECK(v.root->details ==
        std::vector<std::string>{"stalled for more than HOROVOD_STALL_SHUTDOWN_TIME_SECONDS=3 s, shutting down:",
                                 "  allreduce 'wait' waited 3 s for rank 1"});
  CHECK(hvd::failure_record_from_json(hvd::to_json(*r0.record)).stall);
}

TEST_CASE("an elastic worker that exits on hvdrun's 'the job is ending' answer is a consequence, not a cause") {
  JobReport report(true);
  report.add_rank(0, "worker localhost/0", "localhost");
  report.add_rank(1, "worker localhost/1", "localhost");
  report_exit(report, 1, {{"type", "exit"}, {"rank", 1}, {"pid", 42}, {"code", 5}, {"time_ms", 1000},
                    {"stderr_tail", {"loader: shard 7 is corrupt"}}});
  report.failed(7, "hvdrun: 1 workers, fewer than --min-np 2, for --elastic-timeout 2 s");
  report.told_to_end(0);  // before the teardown's signal could reach it
  report_exit(report, 0, {{"type", "exit"}, {"rank", 0}, {"pid", 41}, {"code", 3}, {"time_ms", 3000}});
  auto j = report.to_json();
  CHECK(j["ranks"][0]["role"] == "consequence");
  CHECK(j["ranks"][1]["role"] == "root cause");
}
