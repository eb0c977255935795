#include "runtime/api/runtime.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <mutex>

#include "common/crypto.h"
#include "common/logging.h"
#include "hvd/error.h"
#include "runtime/comm/cpu_backend.h"
#include "runtime/comm/shm/cpu_binding.h"
#include "runtime/elastic/elastic_backend.h"
#include "runtime/api/uncaught_exception.h"

namespace hvd::detail {
namespace {

// The process's one runtime. init/shutdown hold the mutex; queries read the pointer.
std::mutex g_mutex;
std::unique_ptr<Runtime> g_owner;  // guarded by g_mutex
std::atomic<Runtime*> g_runtime{nullptr};
// Elastic jobs: the generation this process last joined, kept across runtimes so that hvd::shutdown() and
// hvd::init() (or reset()) ask hvdrun for a newer one, never the one the old runtime left.
std::int64_t g_elastic_generation = -1;  // guarded by g_mutex

void setup_logging_once(const Config& config, int rank) {
  // Logger names are per process ("hvd rank 3-<pid>"); a second init() reuses the logger and only changes its
  // level, unless the rank changed (an elastic reset), which the prefix must say: then it replaces it.
  const std::string component = "hvd rank " + std::to_string(rank);
  if (auto current = spdlog::default_logger(); current && current->name().rfind("hvd rank", 0) == 0) {
    if (current->name().rfind(component + "-", 0) == 0) {
      spdlog::set_level(spdlog::level::from_str(config.log_level));
      return;
    }
    spdlog::drop(current->name());
  }
  setup_logging(component, config.log_level);
}

}  // namespace

void Runtime::init() {
  std::lock_guard lock(g_mutex);
  init_locked();
}

void Runtime::init(const std::vector<std::vector<int>>& process_sets) {
  std::lock_guard lock(g_mutex);
  if (g_owner && !process_sets.empty()) {
    throw Error(ErrorKind::kUsage, "hvd::init(process_sets): hvd is initialized already; call shutdown() first, or "
                                   "add the sets with add_process_set (HOROVOD_DYNAMIC_PROCESS_SETS=1)");
  }
  init_locked(process_sets);
}

// Where this runtime's process sets meet in the store: every rank of a runtime counts the same number of runtimes
// before it (a static job re-initialized), or the elastic generation names it.
std::string Runtime::process_set_keys(const StartConfig& start) {
  if (elastic_) return "elastic/g" + std::to_string(elastic_->generation) + "/ps/";
  (void)start;
  const auto size = comm_->topology().size;
  const auto n = (store_->add("ps/runtimes", 1) - 1) / size;
  return "ps/r" + std::to_string(n) + "/";
}

void Runtime::init_locked(const std::vector<std::vector<int>>& process_sets) {
  if (g_owner) return;
  auto env = process_env();
  std::unique_ptr<Runtime> rt(new Runtime());
  rt->config_ = read_config(env);
  const StartConfig start = read_start_config(env);
  const auto elastic = read_elastic_config(env);
  CpuConnection connection;
  if (elastic) {
    auto joined = connect_elastic(start, *elastic, g_elastic_generation);
    connection = std::move(joined.connection);
    rt->elastic_ = joined.answer;
    g_elastic_generation = joined.answer.generation;
  } else {
    connection = connect_cpu_backend(start);
  }
  rt->cpu_backend_ = connection.backend;
  rt->store_ = std::move(connection.store);
  rt->comm_ = std::move(connection.comm);
  const Topology& topo = rt->comm_->topology();
  setup_logging_once(rt->config_, topo.rank);
  install_uncaught_exception_handler(rt->config_.error_file, topo.rank);
  // An elastic worker that reset goes on: what the old job's engine recorded is no longer why it may fail.
  if (elastic && !rt->config_.error_file.empty()) ::unlink(rt->config_.error_file.c_str());
  rt->engine_ = std::make_unique<Engine>(rt->config_, *rt->comm_);
  CommunicatorOptions set_options;
  if (start.secret_hex) set_options.secret = from_hex(*start.secret_hex);
  set_options.bind_address = start.data_addr;
  rt->sets_ = std::make_unique<ProcessSetTable>(rt->config_, *rt->comm_, *rt->engine_, *rt->store_,
                                                rt->process_set_keys(start), set_options);
  rt->sets_->add_all(process_sets, "hvd::init(process_sets)");
  if (elastic) {
    Runtime* self = rt.get();
    rt->watcher_ = std::make_unique<EventWatcher>(
        connect_elastic_store(start), rt->elastic_->events + 1,
        [self](std::int64_t n, const std::string& value) { self->on_elastic_event(n, value); });
  }
  spdlog::debug("hvd initialized: rank {} of {} on {}, CPU backend {}{}", topo.rank, topo.size, topo.hostname,
                rt->cpu_backend_,
                elastic ? ", elastic generation " + std::to_string(rt->elastic_->generation) : std::string());
  if (auto placement = last_cpu_placement(); !placement.empty()) spdlog::debug("CPU placement: {}", placement);
  spdlog::debug("engine overlap: {} ({})", rt->engine_->overlap().overlap ? "on" : "off", rt->engine_->overlap().why);
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

void Runtime::reset() {
  std::lock_guard lock(g_mutex);
  // Once joined, the runtime knows it is elastic; before the first init() only the environment can say.
  if (g_elastic_generation < 0 && !read_elastic_config(process_env())) {
    throw Error(ErrorKind::kUsage,
                "hvd::elastic::reset() outside an elastic job: start the job with hvdrun --min-np/--max-np (or "
                "--host-discovery-script) so that hvdrun can re-form it");
  }
  if (g_owner) {
    g_runtime.store(nullptr);
    std::unique_ptr<Runtime> old = std::move(g_owner);
    // Nothing of the old job is waited for: peers may be dead, or already in the next rendezvous.
    old->comm_->abort({.code = StopCode::kElasticReset});
    old->sets_->abort({.code = StopCode::kElasticReset, .process_sets = true});
    old.reset();
  }
  init_locked();
}

void Runtime::on_elastic_event(std::int64_t n, const std::string& value) noexcept {
  if (value == "reset") {
    if (sets_) sets_->abort({.code = StopCode::kReform, .event = n, .process_sets = true});
    comm_->abort({.code = StopCode::kReform, .event = n});
  } else if (value == "hosts_updated") {
    hosts_updated_.store(true);
  }
}

bool Runtime::initialized() { return g_runtime.load() != nullptr; }

Runtime& Runtime::get() {
  Runtime* rt = g_runtime.load();
  if (!rt) throw Error(ErrorKind::kUsage, "hvd is not initialized; call hvd::init() first");
  return *rt;
}

Runtime::~Runtime() {
  // The engine goes first: its thread uses the communicator, which uses the store.
  // The watcher stays until the engine is down, so a reset announced meanwhile still unblocks it.
  sets_.reset();  // the sets' engines first: their communicators may derive from the global one (MPI)
  if (engine_) engine_->shutdown();
  engine_.reset();
  watcher_.reset();
  comm_.reset();
  store_.reset();
}

}  // namespace hvd::detail
