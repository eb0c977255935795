// The one runtime instance of a process: configuration, rendezvous store, communicator and engine, created by
// hvd::init() and destroyed by hvd::shutdown(). This is libhvd's only global state. Internal accessors let the
// benchmark reach the communicator directly (--raw). In an elastic job (HOROVOD_ELASTIC=1) the place comes from
// hvdrun's rendezvous, an event watcher (elastic/event_watcher.h) lives beside the engine, and reset() re-forms.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>

#include "runtime/comm/communicator.h"
#include "runtime/comm/config.h"
#include "runtime/elastic/event_watcher.h"
#include "runtime/engine/engine.h"
#include "runtime/api/process_sets.h"
#include "store/store.h"
#include "store/tcp_store.h"

namespace hvd::detail {

class Runtime {
 public:
  // Builds from the environment: the tunables, then the CPU backend (comm/cpu_backend.h) and its placement:
  // HOROVOD_* with HVD_STORE_ADDR, HVD_SECRET, HVD_DATA_ADDR from hvdrun, or MPI's own under mpirun.
  static void init();
  // With static process sets (hvd/process_set.h) besides the global one.
  static void init(const std::vector<std::vector<int>>& process_sets);
  static void shutdown();
  // Elastic jobs: aborts this runtime's operations (kMembership), destroys it and initializes again in the next
  // generation hvdrun forms. Throws hvd::Error (usage) outside an elastic job; initializes when none is running.
  static void reset();
  static bool initialized();
  // Throws hvd::Error "hvd is not initialized; call hvd::init() first" when there is none.
  static Runtime& get();

  const Config& config() const { return config_; }
  const Topology& topology() const { return comm_->topology(); }
  const std::string& cpu_backend() const { return cpu_backend_; }  // "builtin" or "mpi"
  Communicator& communicator() { return *comm_; }
  Store& store() { return *store_; }  // the rendezvous store (hvd-bench --raw builds its own communicator)
  Engine& engine() { return *engine_; }
  ProcessSetTable& process_sets() { return *sets_; }
  // Elastic jobs: the generation this runtime belongs to (nullopt in a static job), and whether hvdrun has
  // announced a change of hosts since it formed that generation.
  const std::optional<RendezvousAnswer>& elastic() const { return elastic_; }
  bool hosts_updated_heard() const { return hosts_updated_.load(); }

  ~Runtime();

 private:
  Runtime() = default;
  static void init_locked(const std::vector<std::vector<int>>& process_sets = {});
  std::string process_set_keys(const StartConfig& start);
  void on_elastic_event(std::int64_t n, const std::string& value) noexcept;

  Config config_;
  std::string cpu_backend_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<Communicator> comm_;
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<ProcessSetTable> sets_;  // after engine_: stops first
  std::optional<RendezvousAnswer> elastic_;
  std::atomic<bool> hosts_updated_{false};  // set by the watcher's thread
  std::unique_ptr<EventWatcher> watcher_;   // uses comm_: stopped before it goes
};

}  // namespace hvd::detail
