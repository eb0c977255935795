#include "launcher/elastic/elastic_job.h"

#include <signal.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>

#include "common/messages/store_answers.h"
#include "launcher/report/exit_codes.h"

namespace hvd::launcher::elastic {
namespace {

// A discovery run that takes longer than this is killed and counted as failed.
constexpr std::chrono::seconds kScriptTimeout{10};

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g s", s);
  return buf;
}

std::chrono::milliseconds to_ms(double s) { return std::chrono::milliseconds(std::llround(s * 1000)); }

std::string exit_text(std::optional<int> code, std::optional<int> signal) {
  if (signal) {
    const char* abbrev = sigabbrev_np(*signal);
    return std::string("was killed by ") + (abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(*signal));
  }
  return "exited with code " + std::to_string(code.value_or(0));
}

// The rendezvous answer (common/messages/store_answers.h); the worker watches events from events + 1.
nlohmann::json placement_reply(const Placement& p, int events) {
  return messages::RendezvousAnswer{.generation = p.generation,
                                    .rank = p.rank,
                                    .size = p.size,
                                    .local_rank = p.local_rank,
                                    .local_size = p.local_size,
                                    .cross_rank = p.cross_rank,
                                    .cross_size = p.cross_size,
                                    .hostname = p.host,
                                    .events = events}
      .encode();
}

nlohmann::json refusal(const std::string& why) { return messages::StoreRefusal{.error = why}.encode(); }

}  // namespace

ElasticJob::ElasticJob(asio::io_context& io, const ElasticOptions& options, std::vector<HostSpec> fixed_hosts,
                       SessionControl& session)
    : io_(io),
      options_(options),
      fixed_hosts_(std::move(fixed_hosts)),
      session_(session),
      membership_(options.min_np, options.max_np),
      blacklist_(options.cooldown),
      failed_slots_(options.cooldown),
      discovery_timer_(io),
      elastic_timer_(io),
      cooldown_timer_(io) {}

ElasticJob::~ElasticJob() = default;

void ElasticJob::start() {
  check_min_np();  // until workers run, the clock of --elastic-timeout runs
  if (options_.discovery_script.empty()) return apply_hosts(fixed_hosts_);
  script_ = std::make_unique<DiscoveryScript>(
      io_, options_.discovery_script, kScriptTimeout,
      [this](const std::string& line) { session_.message("hvdrun: discovery script: " + line); });
  discover();
}

void ElasticJob::stop(const std::string& why) {
  if (stopped_) return;
  stopped_ = true;
  discovery_timer_.cancel();
  elastic_timer_.cancel();
  cooldown_timer_.cancel();
  script_.reset();
  for (auto& [id, weak] : waiting_) {
    if (auto client = weak.lock()) {
      session_.told_to_end(id);
      client->send(refusal(why));
    }
  }
  waiting_.clear();
}

// --- hosts ---------------------------------------------------------------------------------------------------

void ElasticJob::discover() {
  if (stopped_) return;
  script_->run([this](DiscoveryResult result) { on_discovered(std::move(result)); });
}

void ElasticJob::on_discovered(DiscoveryResult result) {
  if (stopped_) return;
  if (result.ok) {
    if (!last_discovery_error_.empty()) session_.message("hvdrun: the discovery script succeeds again");
    last_discovery_error_.clear();
    discovered_ = std::move(result.hosts);
    discovered_once_ = true;
    apply_hosts(discovered_);
  } else if (result.bad_output && !discovered_once_) {
    return fail_job(exit_code::kUsage, "hvdrun: " + result.error);
  } else if (result.error != last_discovery_error_) {
    last_discovery_error_ = result.error;
    session_.message("hvdrun: " + result.error + "; keeping the hosts as they were, trying again every " +
                     seconds_text(options_.discovery_interval_s));
  }
  if (stopped_) return;
  discovery_timer_.expires_after(to_ms(options_.discovery_interval_s));
  discovery_timer_.async_wait([this](std::error_code ec) {
    if (!ec) discover();
  });
}

void ElasticJob::apply_hosts(const std::vector<HostSpec>& hosts) {
  const auto now = std::chrono::steady_clock::now();
  std::vector<HostSpec> usable;
  for (const auto& h : hosts) {
    if (!blacklist_.contains(h.name, now)) usable.push_back(h);
  }
  const auto change = membership_.set_hosts(usable);
  auto excluded = excluded_slots(now);
  const bool slots_back = std::any_of(excluded_.begin(), excluded_.end(), [&](const auto& slot) {
    return !excluded.contains(slot) &&
           std::any_of(usable.begin(), usable.end(), [&](const HostSpec& h) { return h.name == slot.first; });
  });
  for (const auto& [host, slot] : excluded_) {
    if (!excluded.contains({host, slot})) session_.message("hvdrun: slot " + worker_name(host, slot) + " is back");
  }
  excluded_ = std::move(excluded);
  membership_.set_excluded_slots(excluded_);
  for (const auto& h : change.added) {
    host_added_at_[h] = now;
    if (membership_.generation() >= 0) session_.message("hvdrun: host " + h + " is available; adding it");
  }
  for (const auto& h : change.removed) session_.message("hvdrun: host " + h + " is gone from discovery; removing it");
  reconcile(change.any() || slots_back);
}

std::set<std::pair<std::string, int>> ElasticJob::excluded_slots(Blacklist::Clock::time_point now) const {
  std::set<std::pair<std::string, int>> out;
  for (const auto& host : membership_.hosts()) {
    for (int slot = 0; slot < host.slots; ++slot) {
      if (failed_slots_.contains(worker_name(host.name, slot), now)) out.emplace(host.name, slot);
    }
  }
  return out;
}

void ElasticJob::reconcile(bool hosts_changed) {
  if (stopped_ || completing_) return;
  bool workers_changed = false;
  for (int id : membership_.workers_without_slot()) {
    membership_.retire(id);
    answer_no_place(id, "no slot for " + describe(id) + " any more: its host was removed or has fewer slots");
    workers_changed = true;
  }
  std::vector<std::pair<std::string, int>> started;  // (host, worker id)
  for (const auto& [host, slot] : membership_.slots_to_start()) {
    started.emplace_back(host, membership_.add_worker(host, slot));
    workers_changed = true;
  }
  // Every new worker is added before any env is made: each one's HOROVOD_RANK family is its place in the
  // generation they will all join (Horovod's elastic workers read it before hvd.init()).
  for (const auto& [host, id] : started) {
    WorkerContract contract;
    contract.hostname = host;
    contract.elastic = ElasticWorker{worker_name(host, membership_.worker(id)->slot), std::lround(options_.timeout_s)};
    if (auto p = membership_.prospective(id)) {
      contract.placement =
          WorkerPlacement{p->rank, p->size, p->local_rank, p->local_size, p->cross_rank, p->cross_size};
    }
    pending_launch_[host].push_back({id, std::move(contract)});
  }
  for (auto& [host, launches] : pending_launch_) {
    if (launches.empty()) continue;
    AgentState& state = agents_[host];
    if (state == AgentState::kReady) {
      session_.launch_workers(host, launches);
      launches.clear();
    } else if (state == AgentState::kNone) {
      const auto& hosts = membership_.hosts();
      auto spec = std::find_if(hosts.begin(), hosts.end(), [&](const HostSpec& h) { return h.name == host; });
      if (spec == hosts.end()) continue;
      state = AgentState::kStarting;
      session_.start_agent(*spec);
    }
  }
  stop_retired_hosts(false);
  if (hosts_changed && workers_changed && membership_.generation() >= 0) announce("hosts_updated");
  check_min_np();
  try_form();
}

// A worker failed: its slot is out (for its cool-down), unless that was the host's last slot, which takes the
// host out.
void ElasticJob::fail_slot(const std::string& host, int slot, const std::string& why) {
  const auto now = std::chrono::steady_clock::now();
  const std::string name = worker_name(host, slot);
  const auto cooldown = failed_slots_.add(name, now);
  const auto& hosts = membership_.hosts();
  const auto spec = std::find_if(hosts.begin(), hosts.end(), [&](const HostSpec& h) { return h.name == host; });
  if (spec != hosts.end()) {
    bool every_slot_failed = true;
    for (int s = 0; s < spec->slots; ++s)
      every_slot_failed = every_slot_failed && failed_slots_.contains(worker_name(host, s), now);
    if (every_slot_failed) {
      // The host's own cool-down governs from now on.
      for (int s = 0; s < spec->slots; ++s) failed_slots_.forget(worker_name(host, s));
      return fail_host(host, why + ", the last of its " + std::to_string(spec->slots) + " slots to fail");
    }
  }
  session_.message("hvdrun: " + why + "; taking slot " + name + " out of the job" +
                   (cooldown ? " for " + seconds_text(cooldown->count() / 1000.0)
                             : " for the rest of the job (--blacklist-cooldown-range lets it back)"));
  excluded_ = excluded_slots(now);
  membership_.set_excluded_slots(excluded_);
  schedule_release(now);
  if (membership_.generation() >= 0) announce("reset");
  reconcile(false);
}

void ElasticJob::fail_host(const std::string& host, const std::string& why) {
  const auto now = std::chrono::steady_clock::now();
  const auto cooldown = blacklist_.add(host, now);
  session_.message("hvdrun: " + why + "; blacklisting " + host +
                   (cooldown ? " for " + seconds_text(cooldown->count() / 1000.0)
                             : " for the rest of the job (--blacklist-cooldown-range lets it back)"));
  for (int id : membership_.remove_host(host)) {
    membership_.retire(id);
    answer_no_place(id, "host " + host + " was blacklisted: " + why);
  }
  pending_launch_.erase(host);
  AgentState& state = agents_[host];
  if (state == AgentState::kStarting || state == AgentState::kReady) {
    session_.terminate_host(host, why);
    state = AgentState::kStopping;
  }
  schedule_release(now);
  if (membership_.generation() >= 0) announce("reset");
  reconcile(false);
}

// Wakes up when the soonest blacklisted host or failed slot comes back, to use it again.
void ElasticJob::schedule_release(Blacklist::Clock::time_point now) {
  auto release = blacklist_.next_release(now);
  if (auto slot = failed_slots_.next_release(now); slot && (!release || *slot < *release)) release = slot;
  if (!release) return;
  cooldown_timer_.expires_at(*release + std::chrono::milliseconds(10));
  cooldown_timer_.async_wait([this](std::error_code ec) {
    if (ec || stopped_) return;
    apply_hosts(options_.discovery_script.empty() ? fixed_hosts_ : discovered_);
    schedule_release(std::chrono::steady_clock::now());
  });
}

// Hosts whose every remaining worker has no place: once those were told so (or a generation formed without
// them), their agent is stopped.
void ElasticJob::stop_retired_hosts(bool generation_formed) {
  for (auto& [host, state] : agents_) {
    if (state != AgentState::kReady && state != AgentState::kStarting) continue;
    if (auto it = pending_launch_.find(host); it != pending_launch_.end() && !it->second.empty()) continue;
    const auto workers = membership_.workers_on(host);
    if (workers.empty()) {
      if (state == AgentState::kStarting) {
        session_.terminate_host(host, "no workers for it any more");
        state = AgentState::kStopping;
      }
      continue;
    }
    const bool all_gone = std::all_of(workers.begin(), workers.end(), [&](int id) {
      return membership_.worker(id)->state == Membership::State::kRetired &&
             (generation_formed || answered_no_place_.contains(id));
    });
    if (all_gone) {
      session_.terminate_host(host, "host " + host + " has no place in the job any more");
      state = AgentState::kStopping;
    }
  }
}

// --- the session's news --------------------------------------------------------------------------------------

void ElasticJob::on_agent_connected(const std::string& host) {
  AgentState& state = agents_[host];
  if (state == AgentState::kStopping) return session_.terminate_host(host, "host " + host + " was removed");
  state = AgentState::kReady;
  reconcile(false);
}

void ElasticJob::on_worker_exit(int id, std::optional<int> code, std::optional<int> signal) {
  const Membership::Worker* w = membership_.worker(id);
  if (!w || w->state == Membership::State::kExited) return;
  const std::string host = w->host;
  const int slot = w->slot;
  const bool expected = stopped_ || w->state == Membership::State::kRetired || agents_[host] == AgentState::kStopping;
  const bool clean = !signal && code.value_or(0) == 0;
  const std::string who = describe(id);
  membership_.exited(id);
  waiting_.erase(id);
  if (expected) {
    if (completing_ && membership_.generation_exited()) return session_.succeed();
    return reconcile(false);  // its slot may be free for a new worker now
  }
  if (clean) {
    if (!completing_) {
      completing_ = true;
      // Workers that joined no generation yet will never train: there is nothing left to train.
      for (int other = 0; const Membership::Worker* o = membership_.worker(other); ++other) {
        if (o->state == Membership::State::kLive && o->generation != membership_.generation()) {
          membership_.retire(other);
          answer_no_place(other, "the job is finishing: the workers of the last generation are done");
        }
      }
      stop_retired_hosts(true);
    }
    if (membership_.generation_exited()) session_.succeed();
    return;
  }
  if (completing_) {
    const int exit = signal ? exit_code::kSignalBase + *signal : *code;
    return session_.fail(
        exit, "hvdrun: " + who + " on " + host + " " + exit_text(code, signal) + " after others had finished");
  }
  fail_slot(host, slot, who + " on " + host + " " + exit_text(code, signal));
}

void ElasticJob::on_host_lost(const std::string& host, const std::string& reason) {
  AgentState& state = agents_[host];
  const AgentState was = state;
  state = AgentState::kNone;
  bool had_workers = false;
  for (int id : membership_.workers_on(host)) {
    had_workers = had_workers || membership_.worker(id)->state == Membership::State::kLive;
    membership_.exited(id);  // the agent kills its workers when it loses hvdrun
    waiting_.erase(id);
  }
  if (stopped_) return;
  if (was == AgentState::kStopping || !had_workers) {
    if (completing_ && membership_.generation_exited()) return session_.succeed();
    return reconcile(false);
  }
  if (completing_)
    return session_.fail(exit_code::kAgentLost, "hvdrun: lost the agent on " + host + " (" + reason + ")");
  fail_host(host, "lost the agent on " + host + " (" + reason + ")");
}

void ElasticJob::on_rendezvous(const std::shared_ptr<FramedConnection>& client,
                               const messages::RendezvousRequest& request) {
  const std::string& name = request.worker;
  const int after = static_cast<int>(request.after);
  if (stopped_ || completing_) return client->send(refusal("hvdrun has no place for " + name + ": the job is ending"));
  const auto answer = membership_.rendezvous(name, after);
  if (answer.answer == Membership::Answer::kNoPlace) {
    if (answer.worker >= 0) answered_no_place_.insert(answer.worker);
    client->send(refusal(answer.why));
    return stop_retired_hosts(false);
  }
  if (answer.answer == Membership::Answer::kPlaced) return client->send(placement_reply(*answer.placement, events_));
  waiting_[answer.worker] = client;
  if (answer.announce_reset) {
    spdlog::info("{} left generation {} on its own; announcing a reset", name, membership_.generation());
    announce("reset");
  }
  try_form();
}

// --- generations ---------------------------------------------------------------------------------------------

void ElasticJob::answer_no_place(int worker, const std::string& why) {
  auto it = waiting_.find(worker);
  if (it == waiting_.end()) return;
  if (auto client = it->second.lock()) client->send(refusal(why));
  waiting_.erase(it);
  answered_no_place_.insert(worker);
}

void ElasticJob::announce(const std::string& event) {
  ++events_;
  session_.set_store_key("elastic/event/" + std::to_string(events_), event);
  membership_.note_event();
  spdlog::info("elastic event {}: {}", events_, event);
}

void ElasticJob::try_form() {
  if (stopped_ || completing_) return;
  const auto generation = membership_.try_form();
  if (!generation) return;
  if (generation->number > 0 && options_.reset_limit >= 0 && ++resets_ > options_.reset_limit) {
    return fail_job(exit_code::kElastic, "hvdrun: reset " + std::to_string(resets_) +
                                             " of the job is more than --reset-limit " +
                                             std::to_string(options_.reset_limit) +
                                             " allows; raise --reset-limit or fix what keeps failing");
  }
  const auto now = std::chrono::steady_clock::now();
  std::map<std::string, int> per_host;
  for (const auto& p : generation->placements) {
    ++per_host[p.host];
    auto it = waiting_.find(p.worker);
    if (it == waiting_.end()) continue;
    if (auto client = it->second.lock()) client->send(placement_reply(p, events_));
    waiting_.erase(it);
  }
  std::string hosts;
  for (const auto& p : generation->placements) {
    const auto counted = per_host.extract(p.host);  // empty after the host's first placement: each host once
    if (counted.empty()) continue;
    hosts += (hosts.empty() ? "" : ", ") + p.host + ":" + std::to_string(counted.mapped());
    if (auto added = host_added_at_.find(p.host); added != host_added_at_.end() && generation->number > 0) {
      const double s = std::chrono::duration<double>(now - added->second).count();
      session_.message("hvdrun: host " + p.host + " joined generation " + std::to_string(generation->number) + " " +
                       seconds_text(std::round(s * 1000) / 1000) + " after discovery listed it");
    }
    host_added_at_.erase(p.host);
  }
  session_.message("hvdrun: elastic generation " + std::to_string(generation->number) + ": " +
                   std::to_string(generation->placements.size()) + " workers on " + hosts);
  stop_retired_hosts(true);
  check_min_np();
}

void ElasticJob::check_min_np() {
  if (stopped_ || completing_) return;
  const int live = membership_.live();
  if (live >= options_.min_np) {
    if (below_min_np_) elastic_timer_.cancel();
    below_min_np_ = false;
    return;
  }
  if (below_min_np_) return;
  below_min_np_ = true;
  if (membership_.generation() >= 0) {
    session_.message("hvdrun: " + std::to_string(live) + " workers left, fewer than --min-np " +
                     std::to_string(options_.min_np) + "; waiting up to --elastic-timeout " +
                     seconds_text(options_.timeout_s) + " for more hosts");
  }
  elastic_timer_.expires_after(to_ms(options_.timeout_s));
  elastic_timer_.async_wait([this](std::error_code ec) {
    if (!ec) on_elastic_timeout();
  });
}

void ElasticJob::on_elastic_timeout() {
  below_min_np_ = false;
  const int live = membership_.live();
  if (live >= options_.min_np) return;
  std::string why = "hvdrun: " + std::to_string(live) + " workers, fewer than --min-np " +
                    std::to_string(options_.min_np) + ", for --elastic-timeout " + seconds_text(options_.timeout_s);
  if (!options_.discovery_script.empty() && !discovered_once_) {
    why += "; the discovery script never succeeded" +
           (last_discovery_error_.empty() ? std::string() : " (" + last_discovery_error_ + ")");
  }
  fail_job(exit_code::kElastic, why + "; add hosts, lower --min-np or raise --elastic-timeout");
}

void ElasticJob::fail_job(int code, const std::string& message) {
  stop(message);
  session_.fail(code, message);
}

std::string ElasticJob::describe(int id) const {
  const Membership::Worker* w = membership_.worker(id);
  if (!w) return "worker #" + std::to_string(id);
  std::string text = "worker " + worker_name(w->host, w->slot);
  if (w->placement) {
    text += " (rank " + std::to_string(w->placement->rank) + " of generation " +
            std::to_string(w->placement->generation) + ")";
  }
  return text;
}

}  // namespace hvd::launcher::elastic
