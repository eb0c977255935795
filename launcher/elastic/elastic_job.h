// The elastic job's policy (hvdrun --min-np/--max-np/--host-discovery-script): which hosts take part, which
// workers run where, when a generation forms, what a failure costs. The session (launcher/session) runs the
// agents, the output and the teardown for it, through SessionControl (launcher/session/elastic_policy.h); this
// class decides, on the session's io_context. Protocol: common/protocol.h ("rendezvous" op, "elastic/event/<n>" keys).
//
// - Hosts: the discovery script's, run every --discovery-interval (or the fixed -H list), less the blacklist.
//   New hosts get an agent and workers up to --max-np (hosts in join order); workers of hosts that disappear
//   are answered "no place" at rendezvous and their host's agent is then stopped; their exits are no failures.
// - A worker that fails (non-zero exit or a signal hvdrun did not send) takes only its slot out (no worker runs
//   there until the slot's cool-down ends) and announces "reset": a crash is more often the process's fault
//   than the host's. A lost agent, or a host whose every slot failed, blacklists the host (its other workers
//   are stopped) and announces "reset". Added or removed hosts, and slots back from cool-down, announce
//   "hosts_updated".
// - Below --min-np live workers for --elastic-timeout, or past --reset-limit resets, the job fails naming why.
// - The job succeeds once every worker of the last generation has exited 0.
#pragma once

#include <asio.hpp>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/framed_connection.h"
#include "common/messages/store_requests.h"
#include "common/worker_contract.h"
#include "launcher/elastic/blacklist.h"
#include "launcher/elastic/discovery.h"
#include "launcher/elastic/elastic_options.h"
#include "launcher/elastic/membership.h"

namespace hvd::launcher::elastic {

// What the session does for the elastic job.
class SessionControl {
 public:
  struct WorkerLaunch {
    int id;                   // the agent protocol's "rank" and the output prefix: unique, never reused
    WorkerContract contract;  // host name, elastic name and prospective placement; the session adds the rest
  };
  virtual ~SessionControl() = default;
  // Starts the host's agent; later on_agent_connected(host), or on_host_lost(host) when it cannot start.
  virtual void start_agent(const HostSpec& host) = 0;
  virtual void launch_workers(const std::string& host, const std::vector<WorkerLaunch>& workers) = 0;
  // Stops every worker of the host and its agent; the exits that follow are expected.
  virtual void terminate_host(const std::string& host, const std::string& why) = 0;
  virtual void fail(int code, const std::string& message) = 0;
  virtual void succeed() = 0;
  virtual void message(const std::string& text) = 0;
  virtual void set_store_key(const std::string& key, const std::string& value) = 0;
  // Worker `id` was answered "the job is ending" in its rendezvous: it exits because hvdrun stopped the job.
  virtual void told_to_end(int id) = 0;
};

class ElasticJob {
 public:
  ElasticJob(asio::io_context& io, const ElasticOptions& options, std::vector<HostSpec> fixed_hosts,
             SessionControl& session);
  ~ElasticJob();

  void start();
  // The job is ending (success, failure, signal): no more discovery, waiting workers are told "no place".
  void stop(const std::string& why);

  void on_agent_connected(const std::string& host);
  void on_worker_exit(int id, std::optional<int> code, std::optional<int> signal);
  void on_host_lost(const std::string& host, const std::string& reason);
  void on_rendezvous(const std::shared_ptr<FramedConnection>& client, const messages::RendezvousRequest& request);

 private:
  enum class AgentState { kNone, kStarting, kReady, kStopping };

  void discover();
  void on_discovered(DiscoveryResult result);
  void apply_hosts(const std::vector<HostSpec>& hosts);
  void reconcile(bool hosts_changed);
  void fail_slot(const std::string& host, int slot, const std::string& why);
  void fail_host(const std::string& host, const std::string& why);
  std::set<std::pair<std::string, int>> excluded_slots(Blacklist::Clock::time_point now) const;
  void schedule_release(Blacklist::Clock::time_point now);
  void stop_retired_hosts(bool generation_formed);
  void answer_no_place(int worker, const std::string& why);
  void announce(const std::string& event);
  void try_form();
  void check_min_np();
  void on_elastic_timeout();
  void fail_job(int code, const std::string& message);
  std::string describe(int worker) const;

  asio::io_context& io_;
  ElasticOptions options_;
  std::vector<HostSpec> fixed_hosts_;  // -H/--hostfile; empty with a discovery script
  SessionControl& session_;
  Membership membership_;
  Blacklist blacklist_;                             // hosts
  Blacklist failed_slots_;                          // "host/slot"
  std::set<std::pair<std::string, int>> excluded_;  // the slots failed_slots_ holds out now
  std::unique_ptr<DiscoveryScript> script_;
  std::vector<HostSpec> discovered_;  // the script's last good answer
  bool discovered_once_ = false;
  std::string last_discovery_error_;
  asio::steady_timer discovery_timer_, elastic_timer_, cooldown_timer_;
  bool below_min_np_ = false;
  std::map<std::string, AgentState> agents_;
  std::map<std::string, std::vector<SessionControl::WorkerLaunch>> pending_launch_;  // until the agent is ready
  std::map<int, std::weak_ptr<FramedConnection>> waiting_;                           // workers waiting in rendezvous
  std::set<int> answered_no_place_;
  int events_ = 0;
  int resets_ = 0;
  bool completing_ = false;  // a worker of the last generation exited 0: no more generations
  bool stopped_ = false;
  std::map<std::string, std::chrono::steady_clock::time_point> host_added_at_;  // for the join figure
};

}  // namespace hvd::launcher::elastic
