// The runtime's tunables, read from the environment once at init() and validated there. Names and defaults are
// Horovod's. A bad value throws hvd::Error naming the variable, the value and what is accepted.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>

#include "common/env.h"

namespace hvd::detail {

// HVD_ENGINE_OVERLAP: whether the engine reduces while the framework computes (the rule: Engine, engine.h).
enum class EngineOverlap { kAuto, kOn, kOff };

struct Config {
  std::size_t fusion_threshold = 128u << 20;    // HOROVOD_FUSION_THRESHOLD, bytes; 0: no fusion
  std::chrono::microseconds cycle_time{1000};   // HOROVOD_CYCLE_TIME, ms (fractions allowed)
  std::size_t cache_capacity = 1024;            // HOROVOD_CACHE_CAPACITY; 0: no cache
  std::chrono::seconds stall_check_time{60};    // HOROVOD_STALL_CHECK_TIME_SECONDS; 0: off
  std::chrono::seconds stall_shutdown_time{0};  // HOROVOD_STALL_SHUTDOWN_TIME_SECONDS; 0: never
  std::string timeline_path;                    // HOROVOD_TIMELINE; empty: off
  bool timeline_mark_cycles = false;            // HOROVOD_TIMELINE_MARK_CYCLES
  std::size_t timeline_max_bytes = 1ull << 30;  // HOROVOD_TIMELINE_MAX_BYTES, per rank's file
  bool autotune = false;                        // HOROVOD_AUTOTUNE (engine/autotune.h)
  std::string autotune_log;                     // HOROVOD_AUTOTUNE_LOG: CSV, rank 0
  int autotune_warmup_samples = 3;              // HOROVOD_AUTOTUNE_WARMUP_SAMPLES
  int autotune_steps_per_sample = 20;           // HOROVOD_AUTOTUNE_STEPS_PER_SAMPLE
  int autotune_samples_per_point = 3;           // HOROVOD_AUTOTUNE_SAMPLES_PER_POINT
  int autotune_min_sample_ms = 10;              // HOROVOD_AUTOTUNE_MIN_SAMPLE_MS: a shorter sample is extended
  std::string log_level = "warning";            // HOROVOD_LOG_LEVEL
  bool hierarchical_allreduce = true;           // HOROVOD_HIERARCHICAL_ALLREDUCE=0: flat NCCL allreduce across hosts
  std::string error_file;                       // HVD_ERROR_FILE: why this rank failed, for hvdrun's report
  bool dynamic_process_sets = false;            // HOROVOD_DYNAMIC_PROCESS_SETS: add/remove sets after init
  EngineOverlap engine_overlap = EngineOverlap::kAuto;  // HVD_ENGINE_OVERLAP: auto (the default), on or off
};

// A lookup function so tests can feed variables without touching the process environment (common/env.h).
using EnvLookup = env_var::Lookup;
EnvLookup process_env();

Config read_config(const EnvLookup& env);

// Where this process stands in the job, from HOROVOD_RANK/SIZE/LOCAL_*/CROSS_*/HOSTNAME. Absent HOROVOD_RANK
// means a 1-rank job; a partial or inconsistent set throws naming the variables.
struct Placement {
  bool from_launcher = false;
  int rank = 0, size = 1, local_rank = 0, local_size = 1, cross_rank = 0, cross_size = 1;
  std::string hostname;
};
Placement read_placement(const EnvLookup& env);

// HVD_CPU_BIND: where the ranks of a host run (the rule: runtime/comm/shm/cpu_binding.h).
enum class CpuBind { kAuto, kCores, kNone };

// How this process was started and which CPU backend it asks for, read once at init() and handed to the backend
// registry (runtime/comm/cpu_backend.h), so no backend reads the environment itself.
struct StartConfig {
  Placement placement;                      // HOROVOD_RANK/SIZE/LOCAL_*/CROSS_*/HOSTNAME
  std::string controller;                   // HOROVOD_CONTROLLER: "mpi", "builtin" (gloo, tcp) or "" when unset
  std::string cpu_operations;               // HOROVOD_CPU_OPERATIONS, the same values
  std::optional<long long> mpi_world_size;  // OMPI_COMM_WORLD_SIZE: set when mpirun started this process
  std::optional<std::string> store_addr;    // HVD_STORE_ADDR: hvdrun's rendezvous store, set when hvdrun started it
  std::optional<std::string> secret_hex;    // HVD_SECRET: the job secret, hex
  std::string data_addr;                    // HVD_DATA_ADDR: address to bind the data plane to; "" for any
  CpuBind cpu_bind = CpuBind::kAuto;        // HVD_CPU_BIND: auto (the default), cores or none (shm/cpu_binding.h)
};
StartConfig read_start_config(const EnvLookup& env);

}  // namespace hvd::detail
