// Who takes part in an elastic job: the usable hosts in the order they joined, the workers hvdrun started on
// them, and the generations that rendezvous forms (common/protocol.h). Bookkeeping only, no I/O and no clock:
// the elastic job feeds it discovery results, rendezvous requests and exits, and acts on what it answers.
// A generation forms once every live worker waits in rendezvous and there are at least min_np of them; ranks
// follow the hosts' join order, then the slot, so rank 0 is the longest-serving worker (it holds the state).
#pragma once

#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "launcher/plan/hosts.h"

namespace hvd::launcher::elastic {

// A worker's place in one generation: the rendezvous answer.
struct Placement {
  int worker = -1;
  int generation = 0;
  int rank = 0, size = 0, local_rank = 0, local_size = 0, cross_rank = 0, cross_size = 0;
  std::string host;
};

struct Generation {
  int number = 0;
  std::vector<Placement> placements;  // by rank
};

// "h1/0": the stable name of the worker on slot 0 of h1 (HVD_WORKER_ID).
std::string worker_name(const std::string& host, int slot);

class Membership {
 public:
  enum class State { kLive, kRetired, kExited };
  struct Worker {
    int id = -1;  // unique in the job, never reused
    std::string host;
    int slot = 0;
    State state = State::kLive;
    bool waiting = false;  // in rendezvous, for a generation newer than its last
    int generation = -1;   // the last generation that placed it
    std::optional<Placement> placement;
  };
  struct HostsChange {
    std::vector<std::string> added, removed, resized;
    bool any() const { return !added.empty() || !removed.empty() || !resized.empty(); }
  };

  // max_np <= 0: no upper bound.
  Membership(int min_np, int max_np) : min_np_(min_np), max_np_(max_np) {}

  // The hosts usable now (discovered, not blacklisted). New ones join at the end of the order.
  HostsChange set_hosts(const std::vector<HostSpec>& usable);
  // Takes `host` out at once (its worker failed or its agent was lost): returns its workers still running.
  std::vector<int> remove_host(const std::string& host);
  const std::vector<HostSpec>& hosts() const { return hosts_; }
  int usable_slots() const;

  // Slots taken out of the job (a worker failed there and its cool-down runs): no worker is started on them and
  // they do not count towards max_np.
  void set_excluded_slots(std::set<std::pair<std::string, int>> slots) { excluded_ = std::move(slots); }
  // (host, slot) pairs that should run a worker and have none: hosts in join order, up to max_np in all.
  std::vector<std::pair<std::string, int>> slots_to_start() const;
  // Live workers no slot is assigned to any more (their host was removed or shrank).
  std::vector<int> workers_without_slot() const;

  int add_worker(const std::string& host, int slot);
  void retire(int id);  // no place any more: answered "no place" at rendezvous, its exit is no failure
  void exited(int id);
  const Worker* worker(int id) const;
  const Worker* find_live(const std::string& name) const;      // by "host/slot"
  std::vector<int> workers_on(const std::string& host) const;  // not exited
  int live() const;

  enum class Answer { kPlaced, kWait, kNoPlace };
  struct RendezvousAnswer {
    Answer answer = Answer::kWait;
    int worker = -1;
    std::optional<Placement> placement;  // kPlaced: a generation it missed hearing about
    std::string why;                     // kNoPlace
    bool announce_reset = false;         // it left the current generation on its own: bring the others
  };
  RendezvousAnswer rendezvous(const std::string& name, int after);
  // Forms the next generation when every live worker waits and there are min_np or more.
  std::optional<Generation> try_form();
  // The place worker `id` would have in a generation formed now of every live worker: what hvdrun tells a worker
  // it starts (HOROVOD_RANK and family, as Horovod's elastic driver does), before that generation exists.
  std::optional<Placement> prospective(int id) const;
  int generation() const { return generation_; }
  // Called when an event is announced: a rendezvous after that needs no "reset" of its own.
  void note_event() { event_since_generation_ = true; }
  // Whether every worker of the current generation has exited.
  bool generation_exited() const;

 private:
  Worker* find(int id);
  int host_index(const std::string& host) const;
  // The slots that should hold a worker: hosts in join order, then slot, less the excluded, up to max_np.
  std::vector<std::pair<std::string, int>> assigned_slots() const;
  // `members` in rank order (hosts' join order, then slot) and their places in generation `generation`.
  std::vector<Placement> placements(std::vector<const Worker*> members, int generation) const;

  int min_np_, max_np_;
  std::vector<HostSpec> hosts_;  // usable, in join order
  std::vector<Worker> workers_;  // by id
  std::set<std::pair<std::string, int>> excluded_;
  int generation_ = -1;
  bool event_since_generation_ = false;
};

}  // namespace hvd::launcher::elastic
