#include "runtime/api/process_sets.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "hvd/error.h"

namespace hvd::detail {

std::string describe_rank_list(const std::vector<int>& ranks) {
  std::string out = "[";
  for (std::size_t i = 0; i < ranks.size(); ++i) out += (i ? ", " : "") + std::to_string(ranks[i]);
  return out + "]";
}

ProcessSetTable::ProcessSetTable(const Config& config, Communicator& global, Engine& global_engine, Store& store,
                                 std::string key_prefix, CommunicatorOptions options)
    : config_(config),
      global_(global),
      global_engine_(global_engine),
      store_(store),
      key_prefix_(std::move(key_prefix)),
      options_(std::move(options)) {
  // One timeline, autotuner and error file per rank: the global engine's.
  config_.timeline_path.clear();
  config_.autotune = false;
  config_.error_file.clear();
}

ProcessSetTable::~ProcessSetTable() { shutdown_all(); }

std::string ProcessSetTable::describe(const ProcessSetInfo& info) const {
  return "process set " + std::to_string(info.id) + " (ranks " + describe_rank_list(info.ranks) + ")";
}

void ProcessSetTable::check_ranks(const std::vector<int>& ranks, const std::string& what) const {
  const int size = global_.topology().size;
  const std::string list = describe_rank_list(ranks);
  if (ranks.empty()) throw Error(ErrorKind::kUsage, what + ": the rank list is empty; a process set needs a rank");
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    if (ranks[i] < 0 || ranks[i] >= size) {
      throw Error(ErrorKind::kUsage, what + " " + list + ": rank " + std::to_string(ranks[i]) +
                                         " is out of range; the job's ranks are 0-" + std::to_string(size - 1));
    }
    if (std::find(ranks.begin(), ranks.begin() + static_cast<std::ptrdiff_t>(i), ranks[i]) !=
        ranks.begin() + static_cast<std::ptrdiff_t>(i)) {
      throw Error(ErrorKind::kUsage,
                  what + " " + list + ": rank " + std::to_string(ranks[i]) + " is listed twice; list each rank once");
    }
  }
}

ProcessSetInfo ProcessSetTable::add(std::vector<int> ranks, const std::string& what) {
  check_ranks(ranks, what);
  std::sort(ranks.begin(), ranks.end());
  auto set = std::make_shared<Set>();
  {
    std::lock_guard lock(mutex_);
    for (const auto& [id, s] : sets_) {
      if (s->info.ranks == ranks) {
        throw Error(ErrorKind::kUsage, what + " " + describe_rank_list(ranks) + ": the same ranks are " +
                                           describe(s->info) + " already; use that set");
      }
    }
    set->info.id = next_id_++;
  }
  set->info.ranks = ranks;
  const auto mine = std::find(ranks.begin(), ranks.end(), global_.topology().rank);
  set->info.my_rank = mine == ranks.end() ? -1 : static_cast<int>(mine - ranks.begin());
  // Connected outside the lock: the members meet in the store, which may take a while.
  set->comm = global_.subset(ranks, store_, key_prefix_ + std::to_string(set->info.id) + "/", options_);
  if (set->comm) set->engine = std::make_unique<Engine>(config_, *set->comm, ranks);
  spdlog::debug("{} added{}", describe(set->info), set->comm ? "" : " (this rank is not in it)");
  std::lock_guard lock(mutex_);
  sets_.emplace(set->info.id, set);
  return set->info;
}

void ProcessSetTable::add_all(const std::vector<std::vector<int>>& sets, const std::string& what) {
  std::vector<std::vector<int>> sorted;
  for (const auto& ranks : sets) {
    check_ranks(ranks, what);
    sorted.push_back(ranks);
    std::sort(sorted.back().begin(), sorted.back().end());
    const auto first = std::find(sorted.begin(), sorted.end(), sorted.back());
    if (first != sorted.end() - 1) {
      ProcessSetInfo earlier{next_id_ + static_cast<std::int32_t>(first - sorted.begin()), *first, -1};
      throw Error(ErrorKind::kUsage, what + " " + describe_rank_list(ranks) + ": the same ranks are " +
                                         describe(earlier) + " already; list each set once");
    }
  }
  for (const auto& ranks : sets) add(ranks, what);
}

void ProcessSetTable::remove(std::int32_t id) {
  std::shared_ptr<Set> set;
  {
    std::lock_guard lock(mutex_);
    auto it = sets_.find(id);
    if (id == 0) throw Error(ErrorKind::kUsage, "remove_process_set: the global process set (id 0) cannot be removed");
    if (it == sets_.end()) {
      throw Error(ErrorKind::kUsage, "remove_process_set: process set id " + std::to_string(id) +
                                         " is not registered (never added, or removed already)");
    }
    if (it->second->engine && it->second->engine->in_flight() > 0) {
      throw Error(ErrorKind::kUsage, "remove_process_set: " + describe(it->second->info) + " has " +
                                         std::to_string(it->second->engine->in_flight()) +
                                         " op(s) of this rank in flight; wait for them before removing it");
    }
    set = std::move(it->second);
    sets_.erase(it);
  }
  // Every member shuts its engine down together (remove is collective), so none waits for a peer that left.
  if (set->engine) set->engine->shutdown();
}

ProcessSetInfo ProcessSetTable::info(std::int32_t id) const {
  if (id == 0) {
    ProcessSetInfo g;
    for (int r = 0; r < global_.topology().size; ++r) g.ranks.push_back(r);
    g.my_rank = global_.topology().rank;
    return g;
  }
  std::lock_guard lock(mutex_);
  auto it = sets_.find(id);
  if (it == sets_.end()) {
    throw Error(ErrorKind::kUsage, "process set id " + std::to_string(id) +
                                       " is not registered; add it with add_process_set (or init's process_sets)");
  }
  return it->second->info;
}

std::vector<ProcessSetInfo> ProcessSetTable::all() const {
  std::vector<ProcessSetInfo> out{info(0)};
  std::lock_guard lock(mutex_);
  for (const auto& [id, s] : sets_) out.push_back(s->info);
  return out;
}

ProcessSetTable::Member ProcessSetTable::member(std::int32_t id, const CallSite& at) {
  if (id == 0) return {global_engine_, global_.topology().rank, global_.topology().size, nullptr, nullptr};
  std::shared_ptr<Set> set;
  {
    std::lock_guard lock(mutex_);
    auto it = sets_.find(id);
    if (it == sets_.end()) {
      throw Error(ErrorKind::kUsage, at.describe() + ": process set id " + std::to_string(id) +
                                         " is not registered (never added, or removed); pass a registered set");
    }
    set = it->second;
  }
  if (!set->engine) {
    throw Error(ErrorKind::kUsage, at.describe() + ": rank " + std::to_string(global_.topology().rank) + " is not in " +
                                       describe(set->info) + "; call it only on the set's ranks");
  }
  return {*set->engine, set->info.my_rank, static_cast<int>(set->info.ranks.size()), &set->info.ranks, set};
}

void ProcessSetTable::shutdown_all() {
  std::map<std::int32_t, std::shared_ptr<Set>> sets;
  {
    std::lock_guard lock(mutex_);
    sets.swap(sets_);
  }
  for (auto& [id, s] : sets) {
    if (s->engine) s->engine->shutdown();
  }
}

void ProcessSetTable::abort(const Stop& stop) noexcept {
  std::lock_guard lock(mutex_);
  for (auto& [id, s] : sets_) {
    if (s->comm) s->comm->abort(stop);
  }
}

}  // namespace hvd::detail
