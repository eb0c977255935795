// Parsing and validation of the HOROVOD_* variables.
#include "runtime/comm/config.h"

#include <cctype>
#include <limits>

#include "common/env.h"
#include "common/error.h"
#include "common/failure_record.h"
#include "common/logging.h"
#include "common/protocol.h"
#include "common/worker_contract.h"
#include "hvd/error.h"

namespace hvd::detail {
namespace {

// Thin names over common/env, where all variable parsing lives.
[[noreturn]] void bad(const std::string& name, const std::string& value, const std::string& expected) {
  env_var::bad_value(name, value, expected);
}

long long parse_int(const std::string& name, const std::string& value, long long lo, long long hi,
                    const std::string& expected) {
  return env_var::parse_integer(name, value, {.min = lo, .max = hi, .expected = expected});
}

double parse_double(const std::string& name, const std::string& value, double lo, double hi,
                    const std::string& expected) {
  return env_var::parse_real(name, value, {.min = lo, .max = hi, .expected = expected});
}

// "mpi", "builtin" or "" (unset) for HOROVOD_CONTROLLER / HOROVOD_CPU_OPERATIONS.
std::string backend_asked_for(const EnvLookup& env, const char* variable) {
  auto value = env_var::text(env, variable);
  if (!value || value->empty()) return "";
  std::string v;
  for (char c : *value) v += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (v == "mpi") return "mpi";
  if (v == "builtin" || v == "gloo" || v == "tcp") return "builtin";
  bad(variable, *value, "mpi or builtin");
}

// The stall inspector's warning and shutdown times, checked together: the warning comes first.
void read_stall_times(const EnvLookup& env, Config& c) {
  constexpr long long kMaxInt = std::numeric_limits<int>::max();
  if (auto v = env("HOROVOD_STALL_CHECK_TIME_SECONDS")) {
    c.stall_check_time = std::chrono::seconds(
        parse_int("HOROVOD_STALL_CHECK_TIME_SECONDS", *v, 0, kMaxInt, "whole seconds, 0 to turn the check off"));
  }
  if (auto v = env("HOROVOD_STALL_CHECK_DISABLE"); v && *v != "0" && !v->empty()) c.stall_check_time = {};
  if (auto v = env("HOROVOD_STALL_SHUTDOWN_TIME_SECONDS")) {
    c.stall_shutdown_time = std::chrono::seconds(parse_int("HOROVOD_STALL_SHUTDOWN_TIME_SECONDS", *v, 0, kMaxInt,
                                                           "whole seconds, 0 to never shut down on a stall"));
  }
  if (c.stall_shutdown_time.count() > 0 && c.stall_check_time.count() > 0 &&
      c.stall_shutdown_time < c.stall_check_time) {
    throw UsageError("bad HOROVOD_STALL_SHUTDOWN_TIME_SECONDS=" + std::to_string(c.stall_shutdown_time.count()) +
                     ": it must not be below HOROVOD_STALL_CHECK_TIME_SECONDS=" +
                     std::to_string(c.stall_check_time.count()) + " (the warning comes first)");
  }
  if (c.stall_shutdown_time.count() > 0 && c.stall_check_time.count() == 0) {
    c.stall_check_time = c.stall_shutdown_time;  // shutting down on a stall needs the inspector running
  }
}

}  // namespace

EnvLookup process_env() { return env_var::process(); }

Config read_config(const EnvLookup& env) {
  Config c;
  if (auto v = env("HOROVOD_FUSION_THRESHOLD")) {
    c.fusion_threshold = static_cast<std::size_t>(
        parse_int("HOROVOD_FUSION_THRESHOLD", *v, 0, 1ll << 40, "a byte count from 0 (no fusion) to 2^40"));
  }
  if (auto v = env("HOROVOD_CYCLE_TIME")) {
    double ms = parse_double("HOROVOD_CYCLE_TIME", *v, 0.0, 60000.0, "milliseconds from 0 to 60000");
    c.cycle_time = std::chrono::microseconds(static_cast<long long>(ms * 1000.0));
  }
  if (auto v = env("HOROVOD_CACHE_CAPACITY")) {
    c.cache_capacity = static_cast<std::size_t>(
        parse_int("HOROVOD_CACHE_CAPACITY", *v, 0, 1 << 20, "an entry count from 0 (no cache) to 1048576"));
  }
  read_stall_times(env, c);
  if (auto v = env("HOROVOD_TIMELINE")) c.timeline_path = *v;
  if (auto v = env("HOROVOD_TIMELINE_MARK_CYCLES")) c.timeline_mark_cycles = *v != "0" && !v->empty();
  if (auto v = env("HOROVOD_TIMELINE_MAX_BYTES")) {
    c.timeline_max_bytes = static_cast<std::size_t>(
        parse_int("HOROVOD_TIMELINE_MAX_BYTES", *v, 64, 1ll << 50, "a byte count of at least 64"));
  }
  if (auto v = env("HOROVOD_AUTOTUNE")) c.autotune = *v != "0" && !v->empty();
  if (auto v = env("HOROVOD_DYNAMIC_PROCESS_SETS")) c.dynamic_process_sets = *v != "0" && !v->empty();
  if (auto v = env("HOROVOD_AUTOTUNE_LOG")) c.autotune_log = *v;
  auto autotune_count = [&](const char* name, int& field, int lo) {
    if (auto v = env(name))
      field = static_cast<int>(parse_int(name, *v, lo, 10000, "a count from " + std::to_string(lo) + " to 10000"));
  };
  autotune_count("HOROVOD_AUTOTUNE_WARMUP_SAMPLES", c.autotune_warmup_samples, 1);
  autotune_count("HOROVOD_AUTOTUNE_STEPS_PER_SAMPLE", c.autotune_steps_per_sample, 1);
  autotune_count("HOROVOD_AUTOTUNE_SAMPLES_PER_POINT", c.autotune_samples_per_point, 1);
  autotune_count("HOROVOD_AUTOTUNE_MIN_SAMPLE_MS", c.autotune_min_sample_ms, 0);
  if (auto v = env("HOROVOD_HIERARCHICAL_ALLREDUCE")) c.hierarchical_allreduce = *v != "0" && !v->empty();
  if (auto v = env(kEnvErrorFile)) c.error_file = *v;
  if (auto v = env("HVD_ENGINE_OVERLAP")) {
    if (*v != "auto" && *v != "on" && *v != "off") bad("HVD_ENGINE_OVERLAP", *v, "auto (the default), on or off");
    c.engine_overlap = *v == "on" ? EngineOverlap::kOn : *v == "off" ? EngineOverlap::kOff : EngineOverlap::kAuto;
  }
  if (auto v = env("HOROVOD_LOG_LEVEL")) {
    std::string level;
    for (char ch : *v) level += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    static const char* kLevels[] = {"trace", "debug", "info", "warning", "warn", "error", "fatal", "off"};
    bool known = false;
    for (const char* l : kLevels) known |= level == l;
    if (!known) bad("HOROVOD_LOG_LEVEL", *v, "trace, debug, info, warning, error, fatal or off");
    c.log_level = level == "fatal" ? "critical" : level == "warn" ? "warning" : level;
  }
  return c;
}

namespace {

Placement placement_of(const WorkerContract& contract) {
  Placement p;
  p.hostname = contract.hostname.value_or(this_hostname());
  if (!contract.placement) return p;
  const WorkerPlacement& w = *contract.placement;
  p.from_launcher = true;
  p.rank = w.rank;
  p.size = w.size;
  p.local_rank = w.local_rank;
  p.local_size = w.local_size;
  p.cross_rank = w.cross_rank;
  p.cross_size = w.cross_size;
  return p;
}

}  // namespace

Placement read_placement(const EnvLookup& env) { return placement_of(read_worker_contract(env)); }

StartConfig read_start_config(const EnvLookup& env) {
  StartConfig s;
  s.controller = backend_asked_for(env, "HOROVOD_CONTROLLER");
  s.cpu_operations = backend_asked_for(env, "HOROVOD_CPU_OPERATIONS");
  WorkerContract contract = read_worker_contract(env);
  s.placement = placement_of(contract);
  s.mpi_world_size = env_var::integer(env, "OMPI_COMM_WORLD_SIZE", env_var::at_least(1, "a positive rank count"));
  s.store_addr = std::move(contract.store_addr);
  s.secret_hex = std::move(contract.secret_hex);
  s.data_addr = std::move(contract.data_addr);
  // HVD_CPU_BIND=none leaves placement to the operating system (or to a binding the user set up).
  const auto bind = env_var::text(env, "HVD_CPU_BIND").value_or("auto");
  if (bind != "auto" && bind != "cores" && bind != "none") {
    throw UsageError("HVD_CPU_BIND=" + bind + ": use auto (the default), cores or none");
  }
  s.cpu_bind = bind == "auto" ? CpuBind::kAuto : bind == "cores" ? CpuBind::kCores : CpuBind::kNone;
  return s;
}

}  // namespace hvd::detail
