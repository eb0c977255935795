// HOROVOD_AUTOTUNE: tunes the fusion threshold and the cycle time online during the first steps, then fixes them.
// Method (a coordinate search, deterministic and bounded): after HOROVOD_AUTOTUNE_WARMUP_SAMPLES samples, the cycle
// times of kCycleCandidates are scored with the fusion threshold as configured, then the thresholds of
// kFusionCandidates with the best cycle time (a point already scored is not measured again). A phase samples its
// points in rounds, one sample of each point a round, HOROVOD_AUTOTUNE_SAMPLES_PER_POINT rounds: a load that drifts
// while the job runs (another process, a busy core) then weighs on every point alike, not on whichever ran during
// it. A point's score is the median of its samples of bytes/s (bytes the executed ops carried over the wall time of
// the sample, so compute between steps counts, as it does for the job); a point whose first sample is under
// kAbandonBelow x the best first sample of its round (or the best score so far) is scored by that sample alone and
// leaves the rounds. The best scored setting wins (a longer cycle time than the best so far only by
// kLongerCycleMargin), after at most 3 + 3 x 7 samples. Cycle times go first because they decide small steps, and
// a fusion sweep at a slow cycle would spend 15 samples there.
// The warm-up runs the first candidate (cycle time 0), not the configured setting, which may be the slowest.
// A sample is HOROVOD_AUTOTUNE_STEPS_PER_SAMPLE cycles that executed ops (fewer for slow cycle times, see
// kSamplePacing), extended by rank 0 until it spans HOROVOD_AUTOTUNE_MIN_SAMPLE_MS (10) and, once scoring starts, the
// median span of the warm-up's samples (so every setting is scored over about as many of the job's steps; 0 turns
// extension off): a count every rank agrees on
// (all ranks execute the same responses and run the same setting), so every rank reaches the end of a sample at the
// same cycle and calls agree() there, a broadcast from rank 0, whose scores alone decide. Rank 0 writes one CSV row per
// sample to HOROVOD_AUTOTUNE_LOG. Only the background thread calls it.
#pragma once

#include <chrono>
#include <cstddef>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "runtime/comm/config.h"
#include "runtime/engine/message.h"

namespace hvd::detail {

struct TunedParams {
  std::size_t fusion_threshold = 0;
  std::chrono::microseconds cycle_time{0};
  bool operator==(const TunedParams&) const = default;
};

class Autotuner {
 public:
  using Clock = std::chrono::steady_clock;
  // Broadcasts rank 0's string to every rank (the engine passes its communicator's broadcast_from_root).
  using Broadcast = std::function<std::string(const std::string& from_root)>;
  // What a sample's span is measured with: the steady clock; a test passes its own to score samples exactly.
  using Now = std::function<Clock::time_point()>;

  Autotuner(const Config& config, int rank, Now now = [] { return Clock::now(); });
  bool tuning() const { return phase_ != Phase::kDone; }
  const TunedParams& params() const { return current_; }

  // Engine hooks: every executed response, then the end of every cycle. cycle_end returns true when a sample
  // is complete: the caller then calls agree() at once (every rank reaches it at the same cycle).
  void executed(const Response& r);
  bool cycle_end(bool executed_any, Clock::time_point now);
  // Collective: scores the sample (rank 0), moves the search on, and returns the parameters every rank uses next.
  const TunedParams& agree(const Broadcast& broadcast);

  static const std::vector<std::size_t> kFusionCandidates;
  static const std::vector<std::chrono::microseconds> kCycleCandidates;
  static constexpr double kAbandonBelow = 0.5;
  static constexpr double kLongerCycleMargin = 0.1;
  // Whether a scored point replaces the best so far.
  static bool wins(const TunedParams& candidate, double score, const TunedParams& best, double best_score);
  // Cycle times past kSamplePacing / HOROVOD_AUTOTUNE_STEPS_PER_SAMPLE get fewer cycles per sample (at least
  // kMinCyclesPerSample): every rank knows the setting, so every rank still ends the sample at the same cycle.
  static constexpr std::chrono::milliseconds kSamplePacing{20};
  static constexpr int kMinCyclesPerSample = 4;

 private:
  enum class Phase { kWarmup, kCycle, kFusion, kDone };
  struct Point {
    TunedParams params;
    std::vector<double> samples;
    bool dropped = false;  // hopeless after its first sample: scored by it alone
  };
  void score_and_advance(double bytes_per_s, double seconds);  // rank 0: one sample's rate and span
  void start_phase(Phase phase);                // the phase's points, minus those scored already; kDone when none
  void end_round();
  void score_phase();
  int cycles_per_sample() const;
  std::string encode() const;  // rank 0's decision as broadcast: fusion threshold, cycle time (us), phase
  // One CSV row: the setting measured in that sample (the last row, phase "final", is the chosen one).
  void log_row(int sample, Phase phase, const TunedParams& p, std::size_t bytes, double seconds, double rate);

  const int rank_;
  const Now now_;
  const int warmup_samples_, samples_per_point_, steps_per_sample_;
  const std::chrono::milliseconds min_sample_;
  Clock::duration sample_floor_;        // a sample is extended until it spans this: min_sample_, then the warm-up's
  std::vector<double> warmup_seconds_;  // rank 0: what each warm-up sample spanned
  Phase phase_;
  TunedParams current_;
  TunedParams best_;
  double best_score_ = -1;
  std::vector<Point> points_;        // the phase's points, in candidate order
  std::size_t at_ = 0;               // the point being sampled
  int round_ = 0;                    // rounds of the phase done
  std::vector<TunedParams> scored_;  // points done, never sampled again
  int warmup_left_;
  int steps_ = 0;
  std::size_t bytes_ = 0;
  Clock::time_point sample_start_;
  int sample_index_ = 0;
  std::ofstream log_;
};

}  // namespace hvd::detail
