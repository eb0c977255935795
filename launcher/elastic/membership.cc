#include "launcher/elastic/membership.h"

#include <algorithm>
#include <set>

#include "launcher/plan/plan.h"

namespace hvd::launcher::elastic {

std::string worker_name(const std::string& host, int slot) { return host + "/" + std::to_string(slot); }

Membership::HostsChange Membership::set_hosts(const std::vector<HostSpec>& usable) {
  HostsChange change;
  std::erase_if(hosts_, [&](const HostSpec& known) {
    const bool gone =
        std::none_of(usable.begin(), usable.end(), [&](const HostSpec& h) { return h.name == known.name; });
    if (gone) change.removed.push_back(known.name);
    return gone;
  });
  for (const auto& host : usable) {
    const int index = host_index(host.name);
    if (index < 0) {
      hosts_.push_back(host);
      change.added.push_back(host.name);
    } else if (hosts_[index].slots != host.slots) {
      hosts_[index].slots = host.slots;
      change.resized.push_back(host.name);
    }
  }
  return change;
}

std::vector<int> Membership::remove_host(const std::string& host) {
  std::erase_if(hosts_, [&](const HostSpec& h) { return h.name == host; });
  return workers_on(host);
}

int Membership::usable_slots() const { return static_cast<int>(assigned_slots().size()); }

std::vector<std::pair<std::string, int>> Membership::assigned_slots() const {
  std::vector<std::pair<std::string, int>> out;
  for (const auto& host : hosts_) {
    for (int slot = 0; slot < host.slots && (max_np_ <= 0 || static_cast<int>(out.size()) < max_np_); ++slot) {
      if (!excluded_.contains({host.name, slot})) out.emplace_back(host.name, slot);
    }
  }
  return out;
}

std::vector<std::pair<std::string, int>> Membership::slots_to_start() const {
  std::vector<std::pair<std::string, int>> out;
  for (const auto& [host, slot] : assigned_slots()) {
    const bool held = std::any_of(workers_.begin(), workers_.end(), [&](const Worker& w) {
      return w.state != State::kExited && w.host == host && w.slot == slot;
    });
    if (!held) out.emplace_back(host, slot);
  }
  return out;
}

std::vector<int> Membership::workers_without_slot() const {
  const auto slots = assigned_slots();
  const std::set<std::pair<std::string, int>> assigned(slots.begin(), slots.end());
  std::vector<int> out;
  for (const auto& w : workers_) {
    if (w.state == State::kLive && !assigned.contains({w.host, w.slot})) out.push_back(w.id);
  }
  return out;
}

int Membership::add_worker(const std::string& host, int slot) {
  Worker w;
  w.id = static_cast<int>(workers_.size());
  w.host = host;
  w.slot = slot;
  workers_.push_back(std::move(w));
  return workers_.back().id;
}

void Membership::retire(int id) {
  if (Worker* w = find(id); w && w->state == State::kLive) {
    w->state = State::kRetired;
    w->waiting = false;
  }
}

void Membership::exited(int id) {
  if (Worker* w = find(id)) {
    w->state = State::kExited;
    w->waiting = false;
  }
}

const Membership::Worker* Membership::worker(int id) const {
  return id >= 0 && id < static_cast<int>(workers_.size()) ? &workers_[id] : nullptr;
}

Membership::Worker* Membership::find(int id) {
  return id >= 0 && id < static_cast<int>(workers_.size()) ? &workers_[id] : nullptr;
}

const Membership::Worker* Membership::find_live(const std::string& name) const {
  // The newest worker of that name: an older one on the same slot has exited or is on its way out.
  for (auto it = workers_.rbegin(); it != workers_.rend(); ++it) {
    if (it->state != State::kExited && worker_name(it->host, it->slot) == name) return &*it;
  }
  return nullptr;
}

std::vector<int> Membership::workers_on(const std::string& host) const {
  std::vector<int> out;
  for (const auto& w : workers_) {
    if (w.state != State::kExited && w.host == host) out.push_back(w.id);
  }
  return out;
}

int Membership::live() const {
  return static_cast<int>(
      std::count_if(workers_.begin(), workers_.end(), [](const Worker& w) { return w.state == State::kLive; }));
}

int Membership::host_index(const std::string& host) const {
  for (size_t i = 0; i < hosts_.size(); ++i) {
    if (hosts_[i].name == host) return static_cast<int>(i);
  }
  return -1;
}

Membership::RendezvousAnswer Membership::rendezvous(const std::string& name, int after) {
  RendezvousAnswer answer;
  const Worker* found = find_live(name);
  if (!found) {
    answer.answer = Answer::kNoPlace;
    answer.why = "hvdrun knows no running worker '" + name + "' in this job";
    return answer;
  }
  Worker& w = *find(found->id);
  answer.worker = w.id;
  if (w.state == State::kRetired) {
    answer.answer = Answer::kNoPlace;
    answer.why = "host " + w.host + " has no place for worker " + name + " any more (removed or blacklisted)";
    return answer;
  }
  if (w.placement && w.generation > after) {
    // Placed in a generation it has not heard of (its answer was lost with a connection): that one.
    answer.answer = Answer::kPlaced;
    answer.placement = w.placement;
    return answer;
  }
  answer.announce_reset = w.generation >= 0 && w.generation == generation_ && !event_since_generation_;
  if (answer.announce_reset) event_since_generation_ = true;
  w.waiting = true;
  return answer;
}

std::vector<Placement> Membership::placements(std::vector<const Worker*> members, int generation) const {
  std::sort(members.begin(), members.end(), [&](const Worker* a, const Worker* b) {
    return std::pair(host_index(a->host), a->slot) < std::pair(host_index(b->host), b->slot);
  });
  // The static plan's rule for local and cross ranks, over the hosts as this generation fills them.
  std::vector<HostSpec> filled;
  for (const Worker* w : members) {
    if (filled.empty() || filled.back().name != w->host) filled.push_back(HostSpec{"", w->host, 0});
    ++filled.back().slots;
  }
  const Plan plan = make_plan(filled, static_cast<int>(members.size()));
  std::vector<Placement> out;
  for (size_t rank = 0; rank < members.size(); ++rank) {
    const Slot& slot = plan.slots[rank];
    out.push_back(Placement{members[rank]->id, generation, slot.rank, plan.size(), slot.local_rank, slot.local_size,
                            slot.cross_rank, slot.cross_size, members[rank]->host});
  }
  return out;
}

std::optional<Generation> Membership::try_form() {
  std::vector<const Worker*> members;
  for (const auto& w : workers_) {
    if (w.state != State::kLive) continue;
    if (!w.waiting) return std::nullopt;
    members.push_back(&w);
  }
  if (members.empty() || static_cast<int>(members.size()) < min_np_) return std::nullopt;
  Generation generation;
  generation.number = ++generation_;
  event_since_generation_ = false;
  generation.placements = placements(std::move(members), generation.number);
  for (const Placement& p : generation.placements) {
    Worker& w = *find(p.worker);
    w.waiting = false;
    w.generation = generation.number;
    w.placement = p;
  }
  return generation;
}

std::optional<Placement> Membership::prospective(int id) const {
  std::vector<const Worker*> members;
  for (const auto& w : workers_) {
    if (w.state == State::kLive) members.push_back(&w);
  }
  for (const Placement& p : placements(std::move(members), generation_ + 1)) {
    if (p.worker == id) return p;
  }
  return std::nullopt;
}

bool Membership::generation_exited() const {
  for (const auto& w : workers_) {
    if (w.generation == generation_ && generation_ >= 0 && w.state != State::kExited) return false;
  }
  return generation_ >= 0;
}

}  // namespace hvd::launcher::elastic
