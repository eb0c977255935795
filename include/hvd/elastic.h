// Elastic training (hvdrun --min-np/--max-np/--host-discovery-script): the job keeps going when hosts fail, are
// added or are removed. Surviving workers are not restarted: their runtime is reset in process, hvdrun assigns
// ranks again, and training goes on from the last State::commit(). Horovod's hvd.elastic, in C++.
//
//   hvd::init();
//   hvd::elastic::State state;
//   state.track("step", step);                       // plain values; TorchState adds model and optimizer
//   hvd::elastic::run(state, [&] { while (step < n) { train_one(); ++step; if (step % 10 == 0) state.commit(); } });
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "hvd/export.h"

namespace hvd::elastic {

// Thrown by State::commit() on every rank, after the commit, when hvdrun announced a change of hosts (a host added
// or removed by the discovery script) since the last reset: Horovod's HostsUpdatedInterrupt. Nothing is lost; run()
// resets and goes on from this commit.
class HVD_API HostsUpdatedInterrupt : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Whether hvdrun started this process as part of an elastic job (HOROVOD_ELASTIC=1). Callable before init().
HVD_API bool enabled();

// Re-forms the job: shuts the runtime down (pending operations fail with ErrorKind::kMembership) and initializes it
// again with the place hvdrun assigns in the next rendezvous; rank, size and the rest may all change. Throws
// hvd::Error (kMembership) when hvdrun has no place for this process any more (its host was removed, the job is
// ending, or fewer than --min-np workers are left after --elastic-timeout). run() calls it; exposed for
// frameworks that keep their own loop (the Python binding).
HVD_API void reset();

// The generation of the job this process is in: hvdrun's count of the job's formations, from the last rendezvous
// (it grows by one or more at every reset). -1 outside an elastic job. Needs init().
HVD_API std::int64_t generation();

// A collective over all ranks: whether rank 0 heard from hvdrun that hosts were added or removed since the last
// reset. All ranks get rank 0's answer, so all of them interrupt at the same commit.
HVD_API bool hosts_updated();

// How an object is kept with the state: bytes out on commit, bytes in on restore and sync. `sync` may be given to
// send rank 0's object to all ranks more cheaply than bytes (TorchState broadcasts tensors in place).
struct Tracked {
  std::function<std::vector<std::byte>()> save;
  std::function<void(std::span<const std::byte>)> load;
  std::function<void()> sync;  // optional; without it rank 0's save() bytes are broadcast and load()ed
};

// What training must keep across a reset. commit() snapshots every tracked object (in memory, on every rank);
// restore() puts the last snapshot back; sync() makes every rank hold rank 0's current values.
class HVD_API State {
 public:
  State();
  virtual ~State();
  State(const State&) = delete;
  State& operator=(const State&) = delete;

  // A plain value (an int, a double, a struct of them) kept by reference; it must outlive the state.
  template <class T>
    requires std::is_trivially_copyable_v<T>
  void track(const std::string& name, T& value) {
    track(name, Tracked{[&value] {
                          std::vector<std::byte> bytes(sizeof(T));
                          std::memcpy(bytes.data(), &value, sizeof(T));
                          return bytes;
                        },
                        [&value, name](std::span<const std::byte> bytes) { load_value(name, bytes, &value, sizeof(T)); },
                        {}});
  }
  // Any object, through its functions. Names are unique; a second track() with a name throws hvd::Error (usage).
  void track(const std::string& name, Tracked tracked);

  // Snapshots every tracked object, then checks hosts_updated() and throws HostsUpdatedInterrupt if so.
  void commit();
  void restore();
  void sync();
  // Called after each reset, before sync(): e.g. scale the learning rate by the new hvd::size().
  void on_reset(std::function<void()> callback);
  // run() calls these; a framework's own loop may too.
  void run_reset_callbacks();
  std::uint64_t commits() const noexcept { return commits_; }

 private:
  static void load_value(const std::string& name, std::span<const std::byte> bytes, void* value, std::size_t size);
  struct Entry {
    std::string name;
    Tracked tracked;
    std::vector<std::byte> saved;
  };
  std::vector<Entry> entries_;
  std::vector<std::function<void()>> reset_callbacks_;
  std::uint64_t commits_ = 0;
};

// Runs train(): first state.sync() (so workers that joined get rank 0's state), then train(). When the job is
// re-formed under it (an hvd::Error of kind kPeerLost or kMembership: a peer died or hvdrun announced a reset) it
// restores the last commit, resets, runs the reset callbacks, syncs and calls train() again; on
// HostsUpdatedInterrupt the same without the restore. Other errors, and a reset that fails, propagate. Outside an
// elastic job it just syncs and runs train() once.
HVD_API void run(State& state, const std::function<void()>& train);

}  // namespace hvd::elastic
