#include <doctest/doctest.h>

#include <map>
#include <thread>

#include "runtime/config.h"
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
std::vector<TunedParams> search(Autotuner& tuner, const TunedParams& winner) {
  std::vector<TunedParams> sampled;
  const Autotuner::Broadcast identity = [](const std::string& s) { return s; };
  for (int guard = 0; tuner.tuning() && guard < 1000; ++guard) {
    sampled.push_back(tuner.params());
    const auto& p = tuner.params();
    tuner.executed(allreduce_of(1'000 * (p.fusion_threshold == winner.fusion_threshold ? 100 : 1) *
                                (p.cycle_time == winner.cycle_time ? 10 : 1)));
    std::this_thread::sleep_for(std::chrono::microseconds(200));  // every sample takes about as long
    if (tuner.cycle_end(true, Autotuner::Clock::now())) tuner.agree(identity);
  }
  return sampled;
}

}  // namespace

TEST_CASE("autotune: coordinate search over thresholds, then cycle times, keeps the best median") {
  Config config = read_config(hvd::test::env_map({{"HOROVOD_AUTOTUNE", "1"},
                                                  {"HOROVOD_AUTOTUNE_STEPS_PER_SAMPLE", "1"},
                                                  {"HOROVOD_AUTOTUNE_WARMUP_SAMPLES", "2"}}));
  REQUIRE(config.autotune);
  Autotuner tuner(config, 0);
  const TunedParams winner{8u << 20, std::chrono::microseconds(0)};
  auto sampled = search(tuner, winner);
  CHECK_FALSE(tuner.tuning());
  CHECK(tuner.params() == winner);
  // 2 warm-up samples, then 5 thresholds and 3 cycle times, 3 samples each.
  REQUIRE(sampled.size() == 2 + 3 * (Autotuner::kFusionCandidates.size() + Autotuner::kCycleCandidates.size()));
  CHECK(sampled[0] == TunedParams{128u << 20, std::chrono::microseconds(1000)});
  for (std::size_t i = 0; i < Autotuner::kFusionCandidates.size(); ++i) {
    CHECK(sampled[2 + 3 * i].fusion_threshold == Autotuner::kFusionCandidates[i]);
  }
  const std::size_t cycle_start = 2 + 3 * Autotuner::kFusionCandidates.size();
  for (std::size_t i = 0; i < Autotuner::kCycleCandidates.size(); ++i) {
    CHECK(sampled[cycle_start + 3 * i] == TunedParams{8u << 20, Autotuner::kCycleCandidates[i]});
  }
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
