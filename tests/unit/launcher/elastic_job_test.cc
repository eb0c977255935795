#include "launcher/elastic/elastic_job.h"

#include <doctest/doctest.h>

#include <csignal>

using hvd::launcher::ElasticOptions;
using hvd::launcher::HostSpec;
using hvd::launcher::parse_host_list;
using hvd::launcher::elastic::ElasticJob;
using hvd::launcher::elastic::SessionControl;

namespace {

// Records what the elastic job asks of the session; agents connect at once.
struct FakeSession : SessionControl {
  ElasticJob* job = nullptr;
  std::vector<std::string> agents_started, hosts_terminated, messages;
  std::vector<std::pair<std::string, int>> launched;  // (HVD_WORKER_ID, id)
  std::map<std::string, std::string> store;
  std::vector<int> told_to_end_ids;

  void start_agent(const HostSpec& host) override { agents_started.push_back(host.name); }
  void launch_workers(const std::string&, const std::vector<WorkerLaunch>& workers) override {
    for (const auto& w : workers) launched.emplace_back(w.contract.elastic->worker_id, w.id);
  }
  void terminate_host(const std::string& host, const std::string&) override { hosts_terminated.push_back(host); }
  void fail(int, const std::string& message) override { messages.push_back("fail: " + message); }
  void succeed() override { messages.push_back("succeed"); }
  void message(const std::string& text) override { messages.push_back(text); }
  void set_store_key(const std::string& key, const std::string& value) override { store[key] = value; }
  void told_to_end(int id) override { told_to_end_ids.push_back(id); }

  int id_of(const std::string& worker) const {
    for (auto it = launched.rbegin(); it != launched.rend(); ++it) {
      if (it->first == worker) return it->second;
    }
    return -1;
  }
  bool said(const std::string& part) const {
    return std::any_of(messages.begin(), messages.end(),
                       [&](const std::string& m) { return m.find(part) != std::string::npos; });
  }
};

struct Job {
  asio::io_context io;
  FakeSession session;
  ElasticJob job;
  explicit Job(const std::string& hosts, std::optional<hvd::launcher::elastic::CooldownRange> cooldown = {})
      : job(io, options(cooldown), parse_host_list(hosts), session) {
    job.start();
    for (const auto& host : session.agents_started) job.on_agent_connected(host);
  }
  static ElasticOptions options(std::optional<hvd::launcher::elastic::CooldownRange> cooldown) {
    ElasticOptions o;
    o.min_np = 1;
    o.cooldown = cooldown;
    return o;
  }
};

}  // namespace

TEST_CASE("elastic job: a failed worker takes out its slot only; the host's other workers go on") {
  Job j("h1:2,h2:1");
  REQUIRE(j.session.launched.size() == 3);
  j.job.on_worker_exit(j.session.id_of("h1/1"), std::nullopt, SIGKILL);
  CHECK(j.session.hosts_terminated.empty());
  CHECK(j.session.said("worker h1/1 on h1 was killed by SIGKILL; taking slot h1/1 out of the job"));
  CHECK(j.session.launched.size() == 3);  // no new worker on the failed slot
  // A one-slot host: its one worker's failure is all its slots failing.
  j.job.on_worker_exit(j.session.id_of("h2/0"), 1, std::nullopt);
  CHECK(j.session.hosts_terminated == std::vector<std::string>{"h2"});
  CHECK(j.session.said("worker h2/0 on h2 exited with code 1, the last of its 1 slots to fail; blacklisting h2"));
}

TEST_CASE("elastic job: the host is blacklisted when its last slot fails or its agent is lost") {
  Job j("h1:2,h2:1");
  j.job.on_worker_exit(j.session.id_of("h1/0"), 3, std::nullopt);
  CHECK(j.session.hosts_terminated.empty());
  j.job.on_worker_exit(j.session.id_of("h1/1"), std::nullopt, SIGSEGV);
  CHECK(j.session.hosts_terminated == std::vector<std::string>{"h1"});
  CHECK(j.session.said("the last of its 2 slots to fail; blacklisting h1 for the rest of the job"));
  j.job.on_host_lost("h2", "link closed");
  CHECK(j.session.said("lost the agent on h2 (link closed); blacklisting h2"));
  CHECK(j.session.launched.size() == 3);  // nothing started again
}

TEST_CASE("elastic job: with a cool-down the failed slot gets a new worker once it ends") {
  Job j("h1:2", hvd::launcher::elastic::CooldownRange{0.05, 0.05});
  j.job.on_worker_exit(j.session.id_of("h1/1"), std::nullopt, SIGKILL);
  CHECK(j.session.said("taking slot h1/1 out of the job for 0.05 s"));
  CHECK(j.session.launched.size() == 2);
  j.io.run_for(std::chrono::milliseconds(500));
  CHECK(j.session.said("slot h1/1 is back"));
  REQUIRE(j.session.launched.size() == 3);
  CHECK(j.session.launched.back().first == "h1/1");
  CHECK(j.session.hosts_terminated.empty());
}
