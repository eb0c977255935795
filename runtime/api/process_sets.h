// The runtime's process sets (hvd/process_set.h): for each set its ranks and, on its members, a communicator over
// them and an engine of its own (own coordinator, tensor queue, response cache and thread), so a set negotiates
// alone and ops on disjoint sets never wait for each other. Set 0 is the runtime's global engine, not owned here.
// Registration is collective over every rank and happens in the same order everywhere, so ids agree without a
// message: each rank numbers its sets itself. Guarded by one mutex; engines are looked up per op.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/api/argument_checks.h"
#include "runtime/comm/communicator.h"
#include "runtime/comm/config.h"
#include "runtime/engine/engine.h"
#include "store/store.h"

namespace hvd::detail {

struct ProcessSetInfo {
  std::int32_t id = 0;
  std::vector<int> ranks;  // job ranks, ascending
  int my_rank = -1;        // this rank's place in the set; -1 outside it
};

class ProcessSetTable {
 public:
  // `key_prefix` names this runtime's keys in `store` (an elastic generation has its own).
  ProcessSetTable(const Config& config, Communicator& global, Engine& global_engine, Store& store,
                  std::string key_prefix, CommunicatorOptions options);
  ~ProcessSetTable();  // stops every set's engine
  ProcessSetTable(const ProcessSetTable&) = delete;
  ProcessSetTable& operator=(const ProcessSetTable&) = delete;

  // Checks `ranks` (throws hvd::Error naming a duplicate, an out-of-range rank, an empty list, or the ranks of a
  // set already registered), then connects the members. `what` names the call in messages.
  ProcessSetInfo add(std::vector<int> ranks, const std::string& what);
  // init's static sets: every list checked (against each other too) before any is connected.
  void add_all(const std::vector<std::vector<int>>& sets, const std::string& what);
  void remove(std::int32_t id);
  ProcessSetInfo info(std::int32_t id) const;  // throws for an unknown id
  std::vector<ProcessSetInfo> all() const;
  // The engine that runs ops on set `id` on this rank, and this rank's place in it; throws hvd::Error (usage)
  // naming the set and its ranks when this rank is not a member. `at` names the op ("allreduce 'x'"), formatted
  // only then: this runs for every op.
  struct Member {
    Engine& engine;
    int rank;
    int size;
    const std::vector<int>* ranks;  // null for the global set (every rank)
    std::shared_ptr<const void> keep;  // keeps a removed set's engine alive while the op is submitted
  };
  Member member(std::int32_t id, const CallSite& at);
  void shutdown_all();
  // Elastic: fails what the sets' communicators are blocked in (any thread; Communicator::abort).
  void abort(const Stop& stop) noexcept;

 private:
  struct Set {
    ProcessSetInfo info;
    std::unique_ptr<Communicator> comm;  // members only
    std::unique_ptr<Engine> engine;      // members only; goes before comm
  };
  std::string describe(const ProcessSetInfo& info) const;
  void check_ranks(const std::vector<int>& ranks, const std::string& what) const;

  Config config_;  // for the sets' engines: no timeline, autotune or error file of their own
  Communicator& global_;
  Engine& global_engine_;
  Store& store_;
  std::string key_prefix_;
  CommunicatorOptions options_;
  mutable std::mutex mutex_;
  std::map<std::int32_t, std::shared_ptr<Set>> sets_;  // not the global one
  std::int32_t next_id_ = 1;
};

std::string describe_rank_list(const std::vector<int>& ranks);  // "[0, 2, 3]"

}  // namespace hvd::detail
