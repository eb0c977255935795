// hvd::elastic::State (include/hvd/elastic.h): snapshots in memory, restored in place; sync through rank 0.
// Every tracked object's snapshot is taken when it is tracked, at each commit and after each sync, so restore()
// always has something to return to and, after a sync, returns every rank to the same (rank 0's) values.
#include <algorithm>

#include "hvd/elastic.h"
#include "hvd/error.h"
#include "hvd/hvd.h"

namespace hvd::elastic {
namespace {

// Rank 0's bytes to every rank: the length first (ranks may hold objects of different sizes), then the bytes.
std::vector<std::byte> broadcast_bytes(const std::string& name, std::vector<std::byte> bytes) {
  std::int64_t length = static_cast<std::int64_t>(bytes.size());
  hvd::broadcast(TensorView{&length, DataType::kInt64, {}, {}},
                 {.root = 0, .name = "hvd.elastic.sync." + name + ".size"});
  bytes.resize(static_cast<std::size_t>(length));
  if (length > 0) {
    hvd::broadcast(TensorView{bytes.data(), DataType::kUInt8, {length}, {}},
                   {.root = 0, .name = "hvd.elastic.sync." + name});
  }
  return bytes;
}

}  // namespace

State::State() = default;
State::~State() = default;

void State::track(const std::string& name, Tracked tracked) {
  if (!tracked.save || !tracked.load) {
    throw Error(ErrorKind::kUsage, "elastic State::track('" + name + "'): both save and load are needed");
  }
  if (std::any_of(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.name == name; })) {
    throw Error(ErrorKind::kUsage,
                "elastic State::track('" + name + "'): the name is tracked already; names are unique");
  }
  std::vector<std::byte> saved = tracked.save();
  entries_.push_back(Entry{name, std::move(tracked), std::move(saved)});
}

void State::commit() {
  for (auto& e : entries_) e.saved = e.tracked.save();
  ++commits_;
  if (hosts_updated()) {
    throw HostsUpdatedInterrupt("hvdrun announced a change of hosts; the job re-forms at this commit (" +
                                std::to_string(commits_) + ")");
  }
}

void State::restore() {
  for (auto& e : entries_) e.tracked.load(e.saved);
}

void State::sync() {
  for (auto& e : entries_) {
    if (e.tracked.sync) {
      e.tracked.sync();
    } else {
      std::vector<std::byte> mine = hvd::rank() == 0 ? e.tracked.save() : std::vector<std::byte>{};
      e.tracked.load(broadcast_bytes(e.name, std::move(mine)));
    }
    e.saved = e.tracked.save();
  }
}

void State::on_reset(std::function<void()> callback) { reset_callbacks_.push_back(std::move(callback)); }

void State::run_reset_callbacks() {
  for (auto& callback : reset_callbacks_) callback();
}

void State::load_value(const std::string& name, std::span<const std::byte> bytes, void* value, std::size_t size) {
  if (bytes.size() != size) {
    throw Error(ErrorKind::kMismatch, "elastic state '" + name + "': " + std::to_string(bytes.size()) +
                                          " bytes to load into a value of " + std::to_string(size) +
                                          " bytes; every rank must track the same type under one name");
  }
  std::memcpy(value, bytes.data(), size);
}

}  // namespace hvd::elastic
