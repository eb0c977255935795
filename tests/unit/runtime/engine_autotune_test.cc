#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>
#include <utility>

#include "runtime/comm/config.h"
#include "runtime/engine/autotune.h"
#include "tests/unit/runtime/env_map.h"

using namespace hvd;
using namespace hvd::detail;

namespace {

Response allreduce_of(std::int64_t floats) {
  Response r;
  r.dtype = DataType::kFloat32;
  r.names = {"t"};
  r.shapes = {{floats}};
  return r;
}

// Runs rank 0's search alone (the broadcast hands rank 0's decision back) on a workload whose bytes per sample
// are 100x larger under winner's threshold and 10x more under its cycle time; returns every setting sampled.
// Every cycle takes exactly 200 us of `now`, the tuner's clock: the scores are the workload's alone, so a loaded
// machine, where a preempted sample can score under half the best and lose its later samples, changes no count.
std::vector<TunedParams> search(Autotuner& tuner, Autotuner::Clock::time_point& now, const TunedParams& winner) {
  std::vector<TunedParams> sampled;
  const Autotuner::Broadcast identity = [](const std::string& s) { return s; };
  for (int guard = 0; tuner.tuning() && guard < 1000; ++guard) {
    sampled.push_back(tuner.params());
    const auto& p = tuner.params();
    tuner.executed(allreduce_of(1'000 * (p.fusion_threshold == winner.fusion_threshold ? 100 : 1) *
                                (p.cycle_time == winner.cycle_time ? 10 : 1)));
    now += std::chrono::microseconds(200);  // every sample takes as long
    if (tuner.cycle_end(true, now)) tuner.agree(identity);
  }
  return sampled;
}

}  // namespace

TEST_CASE("autotune: cycle times, then thresholds; hopeless points get one sample; keeps the best median") {
  Config config = read_config(hvd::test::env_map({{"HOROVOD_AUTOTUNE", "1"},
                                                  {"HOROVOD_AUTOTUNE_STEPS_PER_SAMPLE", "1"},
                                                  {"HOROVOD_AUTOTUNE_WARMUP_SAMPLES", "2"},
                                                  {"HOROVOD_AUTOTUNE_MIN_SAMPLE_MS", "0"}}));
  REQUIRE(config.autotune);
  Autotuner::Clock::time_point now{std::chrono::hours(1)};
  Autotuner tuner(config, 0, [&] { return now; });
  const TunedParams winner{8u << 20, std::chrono::microseconds(0)};
  auto sampled = search(tuner, now, winner);
  CHECK_FALSE(tuner.tuning());
  CHECK(tuner.params() == winner);
  auto samples_of = [&](const TunedParams& p) { return std::count(sampled.begin() + 2, sampled.end(), p); };
  const TunedParams configured{128u << 20, std::chrono::microseconds(1000)};
  // The warm-up runs the first cycle candidate, not the configured (slowest) cycle time.
  CHECK(sampled[0] == TunedParams{128u << 20, std::chrono::microseconds(0)});
  CHECK(sampled[1] == TunedParams{128u << 20, std::chrono::microseconds(0)});
  // Cycle times first, with the configured threshold: 0 ms (10x the bytes) scores three samples; 1 and 5 ms fall
  // under half of it at their first sample and stop there.
  CHECK(sampled[2] == TunedParams{128u << 20, std::chrono::microseconds(0)});
  CHECK(samples_of({128u << 20, std::chrono::microseconds(0)}) == 3);  // after the warm-up's two
  CHECK(samples_of(configured) == 1);
  CHECK(samples_of({128u << 20, std::chrono::microseconds(5000)}) == 1);
  // Then the thresholds at 0 ms: the winner gets three samples; 32 MiB, after it, one; 128 MiB at 0 ms was scored
  // already and is not sampled again. The winner's last two rounds run it alone.
  CHECK(samples_of(winner) == 3);
  CHECK(samples_of({32u << 20, std::chrono::microseconds(0)}) == 1);
  CHECK(samples_of({128u << 20, std::chrono::microseconds(0)}) == 3);  // the cycle phase's, after the warm-up
  CHECK(sampled.back() == winner);
  // Fewer samples than the full grid of 3 x (3 + 5).
  CHECK(sampled.size() < 2 + 3 * (Autotuner::kFusionCandidates.size() + Autotuner::kCycleCandidates.size()));
}

TEST_CASE("autotune: a phase samples its points in rounds, one sample of each a round, not point after point") {
  // So a load that comes and goes while the job runs weighs on every point alike: sampled point after point, a
  // busy spell as long as three samples would land on one cycle time alone and decide against it.
  Config config = read_config(hvd::test::env_map({{"HOROVOD_AUTOTUNE", "1"},
                                                  {"HOROVOD_AUTOTUNE_STEPS_PER_SAMPLE", "1"},
                                                  {"HOROVOD_AUTOTUNE_WARMUP_SAMPLES", "1"},
                                                  {"HOROVOD_AUTOTUNE_MIN_SAMPLE_MS", "0"}}));
  Autotuner tuner(config, 0);
  const Autotuner::Broadcast identity = [](const std::string& s) { return s; };
  using std::chrono::microseconds;
  std::vector<microseconds> cycle_phase;  // the cycle time of each sample of the cycle phase
  for (int n = 0; tuner.tuning() && n < 1000; ++n) {
    const TunedParams p = tuner.params();
    if (n >= 1 && p.fusion_threshold == config.fusion_threshold) cycle_phase.push_back(p.cycle_time);
    tuner.executed(allreduce_of(1'000));  // every setting alike
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    if (tuner.cycle_end(true, Autotuner::Clock::now())) tuner.agree(identity);
  }
  // The first round samples every cycle time once; the next two, those not dropped as hopeless (a sample under
  // half the best, which only a preempted sample is here), in the same order.
  REQUIRE(cycle_phase.size() >= 3);
  CHECK(std::vector<microseconds>(cycle_phase.begin(), cycle_phase.begin() + 3) ==
        std::vector<microseconds>{microseconds(0), microseconds(1000), microseconds(5000)});
  std::vector<microseconds> kept;
  for (auto c : Autotuner::kCycleCandidates) {
    if (std::count(cycle_phase.begin(), cycle_phase.end(), c) > 1) kept.push_back(c);
  }
  std::vector<microseconds> later_rounds = kept;
  later_rounds.insert(later_rounds.end(), kept.begin(), kept.end());
  CHECK(std::vector<microseconds>(cycle_phase.begin() + 3, cycle_phase.end()) == later_rounds);
}

TEST_CASE("autotune: a longer cycle time must win by a margin, a shorter one or another threshold need not") {
  using std::chrono::microseconds;
  const TunedParams best{128u << 20, microseconds(0)};
  CHECK_FALSE(Autotuner::wins({128u << 20, microseconds(5000)}, 1.05, best, 1.0));  // 5% ahead: noise
  CHECK(Autotuner::wins({128u << 20, microseconds(5000)}, 1.2, best, 1.0));         // 20% ahead: a win
  CHECK(Autotuner::wins({8u << 20, microseconds(0)}, 1.01, best, 1.0));             // same cycle: any gain
  CHECK(Autotuner::wins({128u << 20, microseconds(0)}, 1.01, {128u << 20, microseconds(1000)}, 1.0));
  CHECK_FALSE(Autotuner::wins({8u << 20, microseconds(0)}, 0.99, best, 1.0));
}

TEST_CASE("autotune: a slow cycle time gets fewer cycles per sample, the same on every rank") {
  Config config = read_config(hvd::test::env_map({{"HOROVOD_AUTOTUNE", "1"}, {"HOROVOD_AUTOTUNE_MIN_SAMPLE_MS", "0"}}));
  REQUIRE(config.autotune_steps_per_sample == 20);
  Autotuner tuner(config, 0);
  const Autotuner::Broadcast identity = [](const std::string& s) { return s; };
  std::map<long long, std::vector<int>> cycles_by_cycle_time;  // microseconds -> cycles of each sample
  int cycles = 0;
  for (int guard = 0; tuner.tuning() && guard < 10'000; ++guard) {
    const auto cycle_us = tuner.params().cycle_time.count();
    tuner.executed(allreduce_of(cycle_us == 0 ? 10'000 : 1'000));
    ++cycles;
    if (tuner.cycle_end(true, Autotuner::Clock::now())) {
      tuner.agree(identity);
      cycles_by_cycle_time[cycle_us].push_back(std::exchange(cycles, 0));
    }
  }
  CHECK_FALSE(tuner.tuning());
  for (int c : cycles_by_cycle_time[0]) CHECK(c == 20);
  for (int c : cycles_by_cycle_time[1000]) CHECK(c == 20);  // 20 ms / 1 ms
  REQUIRE_FALSE(cycles_by_cycle_time[5000].empty());
  for (int c : cycles_by_cycle_time[5000]) CHECK(c == 4);  // 20 ms / 5 ms
}

TEST_CASE("autotune: rank 0 extends a sample shorter than HOROVOD_AUTOTUNE_MIN_SAMPLE_MS") {
  Config config = read_config(hvd::test::env_map({{"HOROVOD_AUTOTUNE", "1"},
                                                  {"HOROVOD_AUTOTUNE_STEPS_PER_SAMPLE", "1"},
                                                  {"HOROVOD_AUTOTUNE_WARMUP_SAMPLES", "1"},
                                                  {"HOROVOD_AUTOTUNE_MIN_SAMPLE_MS", "5"}}));
  REQUIRE(config.autotune_min_sample_ms == 5);
  const auto started = Autotuner::Clock::now();  // before the tuner, whose first sample starts when it is made
  Autotuner tuner(config, 0);
  const Autotuner::Broadcast identity = [](const std::string& s) { return s; };
  const TunedParams first = tuner.params();
  // The warm-up and the first point's first sample run the same setting; 1-cycle samples of ~1 ms each must
  // stretch to 5 ms, so the setting changes no sooner than 2 x 5 ms after the start (~2 ms without the minimum).
  // Judged by the clock, not by cycles: a loaded machine oversleeps, which makes cycles fewer but never time less.
  int cycles = 0;
  while (tuner.tuning() && tuner.params() == first && cycles < 1000) {
    tuner.executed(allreduce_of(1'000));
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    ++cycles;
    if (tuner.cycle_end(true, Autotuner::Clock::now())) tuner.agree(identity);
  }
  CHECK(Autotuner::Clock::now() - started >= std::chrono::milliseconds(10));
  CHECK(cycles < 1000);
}

TEST_CASE("autotune: a scored sample spans at least the warm-up's samples, whatever its cycle count") {
  const auto log = std::filesystem::temp_directory_path() / ("hvd-autotune-span-" + std::to_string(::getpid()));
  Config config = read_config(hvd::test::env_map({{"HOROVOD_AUTOTUNE", "1"},
                                                  {"HOROVOD_AUTOTUNE_LOG", log.string()},
                                                  {"HOROVOD_AUTOTUNE_STEPS_PER_SAMPLE", "1"},
                                                  {"HOROVOD_AUTOTUNE_WARMUP_SAMPLES", "3"},
                                                  {"HOROVOD_AUTOTUNE_MIN_SAMPLE_MS", "1"}}));
  {
    Autotuner tuner(config, 0);
    const Autotuner::Broadcast identity = [](const std::string& s) { return s; };
    // The warm-up's three one-cycle samples take 20 ms each (a slow step); later cycles 1 ms: the 1 ms minimum
    // alone would end each scored sample after a cycle or two, the warm-up's span keeps it going >= 20 ms.
    for (int cycle = 0; tuner.tuning() && cycle < 10'000; ++cycle) {
      std::this_thread::sleep_for(std::chrono::milliseconds(cycle < 3 ? 20 : 1));
      tuner.executed(allreduce_of(1'000));
      if (tuner.cycle_end(true, Autotuner::Clock::now())) tuner.agree(identity);
    }
    CHECK_FALSE(tuner.tuning());
  }
  std::ifstream in(log);
  std::string line;
  std::getline(in, line);  // the header
  int scored = 0;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::stringstream fields(line);
    for (std::string cell; std::getline(fields, cell, ',');) cells.push_back(cell);
    REQUIRE(cells.size() >= 6);
    if (cells[1] != "cycle" && cells[1] != "fusion") continue;
    ++scored;
    CHECK(std::stod(cells[5]) >= 0.019);  // seconds
  }
  CHECK(scored >= 8);
  std::filesystem::remove(log);
}

TEST_CASE("autotune: off by default, and then never samples") {
  Config config = read_config(hvd::test::env_map({}));
  Autotuner tuner(config, 0);
  CHECK_FALSE(tuner.tuning());
  CHECK_FALSE(tuner.cycle_end(true, Autotuner::Clock::now()));
  CHECK(tuner.params() == TunedParams{config.fusion_threshold, config.cycle_time});
}

TEST_CASE("tuning variables: values parse; bad ones name the variable") {
  auto c = read_config(hvd::test::env_map({{"HOROVOD_TIMELINE_MARK_CYCLES", "1"},
                                           {"HOROVOD_TIMELINE_MAX_BYTES", "4096"},
                                           {"HOROVOD_AUTOTUNE_LOG", "at.csv"},
                                           {"HOROVOD_AUTOTUNE_SAMPLES_PER_POINT", "5"}}));
  CHECK(c.timeline_mark_cycles);
  CHECK(c.timeline_max_bytes == 4096);
  CHECK(c.autotune_log == "at.csv");
  CHECK(c.autotune_samples_per_point == 5);
  auto error_of = [](std::map<std::string, std::string> vars) {
    return hvd::test::error_of([&] { read_config(hvd::test::env_map(std::move(vars))); });
  };
  CHECK(error_of({{"HOROVOD_TIMELINE_MAX_BYTES", "10"}}).find("HOROVOD_TIMELINE_MAX_BYTES") != std::string::npos);
  CHECK(error_of({{"HOROVOD_AUTOTUNE_STEPS_PER_SAMPLE", "0"}}).find("HOROVOD_AUTOTUNE_STEPS_PER_SAMPLE") !=
        std::string::npos);
}
