#include "runtime/runtime.h"

#include <spdlog/spdlog.h>

#include <atomic>
#include <cstdlib>
#include <mutex>

#include "common/logging.h"
#include "hvd/error.h"
#include "runtime/comm/cpu_backend.h"

namespace hvd::detail {
namespace {

// The process's one runtime. init/shutdown hold the mutex; queries read the pointer.
std::mutex g_mutex;
std::unique_ptr<Runtime> g_owner;  // guarded by g_mutex
std::atomic<Runtime*> g_runtime{nullptr};

void setup_logging_once(const Config& config, int rank) {
  // Logger names are per process; a second init() reuses the first logger and only changes its level.
  if (spdlog::default_logger() && spdlog::default_logger()->name().rfind("hvd rank", 0) == 0) {
    spdlog::set_level(spdlog::level::from_str(config.log_level));
    return;
  }
  setup_logging("hvd rank " + std::to_string(rank), config.log_level);
}

}  // namespace

void Runtime::init() {
  std::lock_guard lock(g_mutex);
  if (g_owner) return;
  auto env = process_env();
  std::unique_ptr<Runtime> rt(new Runtime());
  rt->config_ = read_config(env);
  auto connection = connect_cpu_backend(read_start_config(env));
  rt->cpu_backend_ = connection.backend;
  rt->store_ = std::move(connection.store);
  rt->comm_ = std::move(connection.comm);
  const Topology& topo = rt->comm_->topology();
  setup_logging_once(rt->config_, topo.rank);
  rt->engine_ = std::make_unique<Engine>(rt->config_, *rt->comm_);
  spdlog::debug("hvd initialized: rank {} of {} on {}, CPU backend {}", topo.rank, topo.size, topo.hostname,
                rt->cpu_backend_);
  g_runtime.store(rt.get());
  g_owner = std::move(rt);
  // A program that never calls hvd::shutdown() still stops the engine at exit, before spdlog's statics go.
  static std::once_flag at_exit;
  std::call_once(at_exit, [] { std::atexit([] { Runtime::shutdown(); }); });
}

void Runtime::shutdown() {
  std::unique_ptr<Runtime> rt;
  {
    std::lock_guard lock(g_mutex);
    g_runtime.store(nullptr);
    rt = std::move(g_owner);
  }
  // Destroyed outside the lock: the engine's last cycle may take a while and queries should fail fast meanwhile.
}

bool Runtime::initialized() { return g_runtime.load() != nullptr; }

Runtime& Runtime::get() {
  Runtime* rt = g_runtime.load();
  if (!rt) throw Error(ErrorKind::kUsage, "hvd is not initialized; call hvd::init() first");
  return *rt;
}

Runtime::~Runtime() {
  // The engine goes first: its thread uses the communicator, which uses the store.
  if (engine_) engine_->shutdown();
  engine_.reset();
  comm_.reset();
  store_.reset();
}

}  // namespace hvd::detail
