#include "runtime/engine/autotune.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <sstream>
#include <utility>

namespace hvd::detail {

const std::vector<std::size_t> Autotuner::kFusionCandidates = {0, 1u << 20, 8u << 20, 32u << 20, 128u << 20};
const std::vector<std::chrono::microseconds> Autotuner::kCycleCandidates = {
    std::chrono::microseconds(0), std::chrono::microseconds(1000), std::chrono::microseconds(5000)};

namespace {

const char* phase_name(int phase) {
  static const char* kNames[] = {"warmup", "cycle", "fusion", "final"};
  return kNames[phase];
}

double median(std::vector<double> v) {  // of a point's samples: at least one
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

Autotuner::Autotuner(const Config& config, int rank, Now now)
    : rank_(rank),
      now_(std::move(now)),
      warmup_samples_(config.autotune_warmup_samples),
      samples_per_point_(config.autotune_samples_per_point),
      steps_per_sample_(config.autotune_steps_per_sample),
      min_sample_(std::chrono::milliseconds(config.autotune_min_sample_ms)),
      sample_floor_(min_sample_),
      phase_(config.autotune ? Phase::kWarmup : Phase::kDone),
      // The warm-up runs the first candidate: the configured cycle time may be the slowest setting of all.
      current_{config.fusion_threshold, config.autotune ? kCycleCandidates[0] : config.cycle_time},
      best_(current_),
      warmup_left_(config.autotune_warmup_samples),
      sample_start_(now_()) {
  if (!config.autotune || rank_ != 0 || config.autotune_log.empty()) return;
  log_.open(config.autotune_log, std::ios::trunc);
  if (!log_) {
    spdlog::warn("HOROVOD_AUTOTUNE_LOG={}: cannot open the file for writing; no autotune log", config.autotune_log);
    return;
  }
  log_ << "sample,phase,fusion_threshold,cycle_time_ms,bytes,seconds,bytes_per_s,best_fusion_threshold,"
          "best_cycle_time_ms\n"
       << std::flush;
}

void Autotuner::executed(const Response& r) {
  if (!tuning() || !r.error.empty()) return;
  const std::size_t elem = size_of(r.dtype);
  for (const auto& shape : r.shapes) bytes_ += static_cast<std::size_t>(num_elements(shape)) * elem;
}

bool Autotuner::cycle_end(bool executed_any, Clock::time_point) {
  if (!tuning() || !executed_any) return false;
  return ++steps_ >= cycles_per_sample();
}

int Autotuner::cycles_per_sample() const {
  // A slow cycle time is paced by the cycle, not by the work: fewer cycles tell as much, and each costs the job.
  if (current_.cycle_time.count() <= 0) return steps_per_sample_;
  const auto paced = static_cast<int>(kSamplePacing / current_.cycle_time);
  return std::clamp(paced, std::min(kMinCyclesPerSample, steps_per_sample_), steps_per_sample_);
}

const TunedParams& Autotuner::agree(const Broadcast& broadcast) {
  const auto now = now_();
  const double seconds = std::chrono::duration<double>(now - sample_start_).count();
  const double rate = seconds > 0 ? static_cast<double>(bytes_) / seconds : 0;
  std::string decision;
  // Too short a sample is mostly noise (one preemption halves it): rank 0 extends it over the next cycles, with
  // the same setting on every rank, until it spans sample_floor_.
  const bool extend = rank_ == 0 && now - sample_start_ < sample_floor_;
  if (extend) {
    decision = encode();
  } else if (rank_ == 0) {
    const TunedParams measured = current_;
    const Phase measured_phase = phase_;
    score_and_advance(rate, seconds);
    log_row(sample_index_, measured_phase, measured, bytes_, seconds, rate);
    if (phase_ == Phase::kDone) log_row(sample_index_ + 1, Phase::kDone, current_, 0, 0, best_score_);
    decision = encode();
  }
  decision = broadcast(decision);
  if (rank_ != 0) {
    std::istringstream in(decision);
    long long fusion = 0, cycle_us = 0;
    int phase = 0;
    in >> fusion >> cycle_us >> phase;
    current_ = {static_cast<std::size_t>(fusion), std::chrono::microseconds(cycle_us)};
    phase_ = static_cast<Phase>(phase);
  }
  steps_ = 0;
  if (extend) return current_;
  ++sample_index_;
  bytes_ = 0;
  sample_start_ = now_();  // the broadcast is not part of the next sample
  return current_;
}

std::string Autotuner::encode() const {
  std::ostringstream out;
  out << current_.fusion_threshold << ' ' << current_.cycle_time.count() << ' ' << static_cast<int>(phase_);
  return out.str();
}

void Autotuner::score_and_advance(double rate, double seconds) {
  if (phase_ == Phase::kWarmup) {
    warmup_seconds_.push_back(seconds);
    if (--warmup_left_ > 0) return;
    // Every scored sample spans at least what the warm-up's took (their median: the first holds the job's start).
    // A slow cycle time's few cycles would otherwise cover one or two training steps, where the way a step's bytes
    // fall against the sample's ends decides the score more than the setting does (seen: 5 ms "won" by 40%).
    // HOROVOD_AUTOTUNE_MIN_SAMPLE_MS=0 turns extension off: a sample is then its cycles exactly.
    if (min_sample_.count() > 0) {
      const std::chrono::duration<double> warmup_span(median(warmup_seconds_));
      sample_floor_ = std::max<Clock::duration>(min_sample_, std::chrono::duration_cast<Clock::duration>(warmup_span));
    }
    return start_phase(Phase::kCycle);
  }
  points_[at_].samples.push_back(rate);
  do {
    if (++at_ == points_.size()) return end_round();
  } while (points_[at_].dropped);
  current_ = points_[at_].params;
}

void Autotuner::start_phase(Phase phase) {
  phase_ = phase;
  points_.clear();
  if (phase == Phase::kCycle) {
    for (auto cycle : kCycleCandidates) points_.push_back({{current_.fusion_threshold, cycle}, {}});
  } else if (phase == Phase::kFusion) {
    // The thresholds are tried with the best cycle time found; the configured one was scored in the cycle phase.
    for (auto fusion : kFusionCandidates) {
      const TunedParams p{fusion, best_.cycle_time};
      if (std::find(scored_.begin(), scored_.end(), p) == scored_.end()) points_.push_back({p, {}});
    }
  }
  if (points_.empty()) phase_ = Phase::kDone;
  if (phase_ == Phase::kDone) {
    current_ = best_;
    return;
  }
  at_ = 0;
  round_ = 0;
  current_ = points_[0].params;
}

void Autotuner::end_round() {
  if (++round_ == 1) {
    // A point whose first sample is under half the best cannot win on noise this side of 2x: it is scored by that
    // sample, so a bad setting (a 5 ms cycle on small steps) costs the job one sample, not three.
    double best_first = best_score_;
    for (const auto& p : points_) best_first = std::max(best_first, p.samples.front());
    for (auto& p : points_) p.dropped = p.samples.front() < kAbandonBelow * best_first;
  }
  at_ = 0;
  while (at_ < points_.size() && points_[at_].dropped) ++at_;
  if (round_ >= samples_per_point_ || at_ == points_.size()) return score_phase();
  current_ = points_[at_].params;
}

void Autotuner::score_phase() {
  for (const auto& p : points_) {
    const double score = median(p.samples);
    scored_.push_back(p.params);
    if (best_score_ < 0 || wins(p.params, score, best_, best_score_)) {
      best_score_ = score;
      best_ = p.params;
    }
  }
  start_phase(phase_ == Phase::kCycle ? Phase::kFusion : Phase::kDone);
}

bool Autotuner::wins(const TunedParams& candidate, double score, const TunedParams& best, double best_score) {
  // A longer cycle time only makes small steps wait; it must win by kLongerCycleMargin, so that one lucky sample
  // cannot fix a 5 ms cycle for the rest of the job (seen in 1 of 3 training runs on this VM).
  const double margin = candidate.cycle_time > best.cycle_time ? 1 + kLongerCycleMargin : 1;
  return score > best_score * margin;
}

void Autotuner::log_row(int sample, Phase phase, const TunedParams& p, std::size_t bytes, double seconds, double rate) {
  if (!log_.is_open()) return;
  log_ << sample << ',' << phase_name(static_cast<int>(phase)) << ',' << p.fusion_threshold << ','
       << static_cast<double>(p.cycle_time.count()) / 1000.0 << ',' << bytes << ',' << seconds << ',' << rate << ','
       << best_.fusion_threshold << ',' << static_cast<double>(best_.cycle_time.count()) / 1000.0 << '\n'
       << std::flush;
}

}  // namespace hvd::detail
