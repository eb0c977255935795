#include "runtime/runtime.h"

#include <spdlog/spdlog.h>

#include <atomic>
#include <cstdlib>
#include <mutex>

#include "common/crypto.h"
#include "common/logging.h"
#include "common/protocol.h"
#include "hvd/error.h"
#include "runtime/solo_communicator.h"
#include "runtime/store/memory_store.h"
#include "runtime/store/prefix_store.h"
#include "runtime/store/tcp_store.h"

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
  Placement place = read_placement(env);
  setup_logging_once(rt->config_, place.rank);

  Topology topo;
  topo.rank = place.rank;
  topo.size = place.size;
  topo.local_rank = place.local_rank;
  topo.local_size = place.local_size;
  topo.cross_rank = place.cross_rank;
  topo.cross_size = place.cross_size;
  topo.hostname = place.hostname;
  if (place.size == 1) {
    rt->store_ = std::make_unique<MemoryStore>();
    rt->comm_ = std::make_unique<SoloCommunicator>(topo);
  } else {
    auto addr = env(protocol::kEnvStoreAddr);
    auto secret_hex = env(protocol::kEnvSecret);
    if (!addr || !secret_hex) {
      throw Error(std::string("HOROVOD_SIZE=") + std::to_string(place.size) + " but " +
                  (!addr ? protocol::kEnvStoreAddr : protocol::kEnvSecret) +
                  " is not set: start multi-rank jobs with hvdrun");
    }
    std::string secret = from_hex(*secret_hex);
    rt->store_ = TcpStore::connect(*addr, secret, place.rank);
    CommunicatorOptions options;
    options.secret = secret;
    options.bind_address = env(protocol::kEnvDataAddr).value_or("");
    rt->comm_ = connect_communicator(*rt->store_, topo, options);
  }
  rt->engine_ = std::make_unique<Engine>(rt->config_, *rt->comm_);
  spdlog::debug("hvd initialized: rank {} of {} on {}", place.rank, place.size, place.hostname);
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
  if (!rt) throw Error("hvd is not initialized; call hvd::init() first");
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
