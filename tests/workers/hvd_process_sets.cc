// Process sets (hvd/process_set.h) under hvdrun at np >= 2. argv: <mode> <dir>, dir shared by the ranks.
//  static:  init({{1, 0}, {size-1, 0}}) (set 2 is {0} at np 2, without rank 1 always): every op on each set this rank is in, checked against what the set's ranks
//           compute; a rank outside a set, a broadcast root outside it, an unknown id: hvd::Error naming them;
//           independence: rank 1 stops itself (SIGSTOP) while the ranks of set 2 run ops on it, then wake it (a negotiation shared with rank 1 would hang there).
//  dynamic: HOROVOD_DYNAMIC_PROCESS_SETS=1: bad rank lists refused naming the value, add/remove, removing a set
//           with an op in flight refused, an op on a removed set refused; the job goes on after each.
//  off:     without HOROVOD_DYNAMIC_PROCESS_SETS add_process_set is refused, saying how to turn it on.
//  bad-init: init with a duplicate rank fails naming it on every rank; a plain init then works.
// Prints "process sets ok <mode> rank=R size=N" when every check holds.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "hvd/hvd.h"
#include "tests/workers/worker_args.h"
#include "tests/workers/worker_checks.h"

namespace {

using namespace hvd::test;  // check, check_throws, g_rank, g_failures (worker_checks.h)

int g_size = 1;
std::string g_dir;

// Written whole, then renamed into place: a reader that sees the name reads the pid (not an empty file, pid 0).
void touch(const std::string& name) {
  const std::string path = g_dir + "/" + name;
  std::ofstream(path + ".tmp") << ::getpid() << "\n";
  std::filesystem::rename(path + ".tmp", path);
}
bool exists(const std::string& name) { return ::access((g_dir + "/" + name).c_str(), F_OK) == 0; }
void wait_for(const std::string& name) {
  while (!exists(name)) std::this_thread::sleep_for(std::chrono::milliseconds(10));
}
int read_pid(const std::string& name) {
  int pid = 0;
  std::ifstream(g_dir + "/" + name) >> pid;
  return pid;
}

hvd::TensorView view(std::vector<double>& v, std::int64_t rows = -1) {
  return {v.data(), hvd::DataType::kFloat64, {rows < 0 ? static_cast<std::int64_t>(v.size()) : rows}, {}};
}

// Every op on `set`, which this rank is in; values from the job ranks so a wrong membership shows.
void ops_on(const hvd::ProcessSet& set) {
  const auto& ranks = set.ranks();
  const int n = set.size();
  const std::string tag = "set " + std::to_string(set.id()) + ": ";
  double sum = 0;
  for (int r : ranks) sum += r + 1;

  std::vector<double> x{static_cast<double>(g_rank + 1)};
  hvd::allreduce(view(x), view(x), {.op = hvd::ReduceOp::kSum, .process_set = set.id()});
  check(x[0] == sum, tag + "allreduce sum " + std::to_string(x[0]) + ", wanted " + std::to_string(sum));
  x = {static_cast<double>(g_rank + 1)};
  hvd::allreduce(view(x), view(x), {.process_set = set.id()});
  check(x[0] == sum / n, tag + "allreduce average");

  std::vector<double> row{static_cast<double>(g_rank)};
  auto gathered = hvd::allgather(view(row), {.process_set = set.id()});
  const auto* g = static_cast<const double*>(gathered.tensor().data);
  check(gathered.tensor().shape[0] == n, tag + "allgather rows");
  for (int i = 0; i < n; ++i) check(g[i] == ranks[i], tag + "allgather in set order");

  for (int root : ranks) {
    std::vector<double> b{static_cast<double>(g_rank * 10)};
    hvd::broadcast(view(b), {.root = root, .process_set = set.id()});
    check(b[0] == root * 10, tag + "broadcast from job rank " + std::to_string(root));
  }

  std::vector<double> a(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) a[i] = g_rank * 100 + i;
  auto swapped = hvd::alltoall(view(a), {.process_set = set.id()});
  const auto* s = static_cast<const double*>(swapped.tensor().data);
  for (int i = 0; i < n; ++i) check(s[i] == ranks[i] * 100 + set.rank(), tag + "alltoall");

  std::vector<double> rs(static_cast<std::size_t>(n), static_cast<double>(g_rank + 1));
  auto share = hvd::reducescatter(view(rs), {.op = hvd::ReduceOp::kSum, .process_set = set.id()});
  check(share.tensor().shape[0] == 1 && static_cast<const double*>(share.tensor().data)[0] == sum,
        tag + "reducescatter");

  std::vector<double> g1{1.0}, g2{2.0};
  hvd::grouped_allreduce({view(g1), view(g2)}, {view(g1), view(g2)},
                         {.op = hvd::ReduceOp::kSum, .process_set = set.id()});
  check(g1[0] == n && g2[0] == 2.0 * n, tag + "grouped allreduce");
  hvd::barrier(set.id());
}

// Rank 1 stops; the ranks of `without_1` (a set without rank 1) run ops, then wake it. Were the set's negotiation
// tied to rank 1's engine, the ops would wait for ever: a watchdog wakes rank 1 and fails the run after 30 s.
void independence(const hvd::ProcessSet& without_1) {
  if (g_rank == 1) {
    touch("pid.1");
    ::raise(SIGSTOP);
    return;
  }
  if (!without_1.included()) return;
  wait_for("pid.1");
  const int pid = read_pid("pid.1");
  for (int waited_ms = 0;; waited_ms += 5) {  // until rank 1 is stopped
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string a, b, state;
    stat >> a >> b >> state;
    if (state == "T") break;
    if (waited_ms > 30000) {
      std::fprintf(stderr, "rank %d: rank 1 (pid %d) did not stop within 30 s (state '%s')\n", g_rank, pid,
                   state.c_str());
      std::_Exit(3);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  std::jthread watchdog([pid](std::stop_token stop) {
    for (int i = 0; i < 3000 && !stop.stop_requested(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (stop.stop_requested()) return;
    std::fprintf(stderr, "rank %d: ops on set without rank 1 waited for the stopped rank 1\n", g_rank);
    ::kill(pid, SIGCONT);
    std::_Exit(3);
  });
  for (int i = 0; i < 10; ++i) {
    std::vector<double> x{1.0};
    hvd::allreduce(view(x), view(x), {.op = hvd::ReduceOp::kSum, .process_set = without_1.id()});
    check(x[0] == without_1.size(), "allreduce while rank 1 is stopped");
  }
  watchdog.request_stop();
  if (g_rank == 0) ::kill(pid, SIGCONT);
}

void static_mode() {
  hvd::init({{1, 0}, g_size > 2 ? std::vector<int>{g_size - 1, 0} : std::vector<int>{0}});
  g_rank = hvd::rank();
  const auto sets = hvd::process_sets();
  check(sets.size() == 3 && sets[0].id() == 0 && sets[0].size() == g_size, "process_sets(): global first");
  const auto a = hvd::process_set(1);
  const auto c = hvd::process_set(2);
  const std::vector<int> c_ranks = g_size > 2 ? std::vector<int>{0, g_size - 1} : std::vector<int>{0};
  check(a.ranks() == std::vector<int>{0, 1}, "set 1 ranks sorted");
  check(a.rank() == (g_rank < 2 ? g_rank : -1) && a.included() == (g_rank < 2), "set 1 rank()/included()");
  check(c.ranks() == c_ranks && c.rank() == (g_rank == 0 ? 0 : g_rank == g_size - 1 && g_size > 2 ? 1 : -1),
        "set 2 ranks and rank()");

  for (const auto& s : sets) {
    if (s.included()) ops_on(s);
  }
  std::vector<double> x{1.0};
  if (!a.included()) {
    check_throws([&] { hvd::allreduce(view(x), view(x), {.name = "outsider", .process_set = 1}); },
                 "allreduce 'outsider': rank " + std::to_string(g_rank) + " is not in process set 1 (ranks [0, 1])",
                 "op on a set this rank is not in");
  }
  if (!c.included()) {
    std::string list;
    for (int r : c_ranks) list += (list.empty() ? "" : ", ") + std::to_string(r);
    check_throws([&] { hvd::barrier(2); }, "is not in process set 2 (ranks [" + list + "])", "barrier outside the set");
  }
  if (a.included() && g_size > 2) {
    check_throws([&] { hvd::broadcast(view(x), {.root = 2, .process_set = 1}); },
                 "root 2 is not in process set 1 (ranks [0, 1])", "broadcast root outside the set");
  }
  check_throws([&] { hvd::allreduce(view(x), view(x), {.process_set = 7}); }, "process set id 7 is not registered",
               "op on an unknown set");
  check_throws([&] { hvd::remove_process_set(a); }, "HOROVOD_DYNAMIC_PROCESS_SETS=1", "remove without dynamic sets");
  independence(c);
  ops_on(hvd::global_process_set());  // the job goes on, every rank awake
}

void dynamic_mode() {
  hvd::init();
  g_rank = hvd::rank();
  check_throws([] { hvd::add_process_set({0, 1, 1}); }, "add_process_set [0, 1, 1]: rank 1 is listed twice",
               "duplicate rank");
  check_throws([] { hvd::add_process_set({0, 9}); }, "rank 9 is out of range; the job's ranks are 0-",
               "out-of-range rank");
  check_throws([] { hvd::add_process_set({-1}); }, "rank -1 is out of range", "negative rank");
  check_throws([] { hvd::add_process_set({}); }, "the rank list is empty", "empty set");
  auto a = hvd::add_process_set({1, 0});
  check(a.id() == 1 && a.ranks() == std::vector<int>{0, 1}, "added set 1");
  check_throws([] { hvd::add_process_set({0, 1}); }, "the same ranks are process set 1 (ranks [0, 1]) already",
               "the same ranks twice");
  if (a.included()) ops_on(a);
  check_throws([] { hvd::remove_process_set(hvd::global_process_set()); }, "global process set (id 0) cannot",
               "remove the global set");

  // Removing a set with an op of this rank in flight: rank 0 submits, rank 1 waits until rank 0 tried.
  std::vector<double> x{static_cast<double>(g_rank + 1)};
  if (g_rank == 0) {
    auto h = hvd::allreduce_async(view(x), view(x), {.op = hvd::ReduceOp::kSum, .name = "pending", .process_set = 1});
    check_throws([&] { hvd::remove_process_set(a); }, "process set 1 (ranks [0, 1]) has 1 op(s) of this rank in flight",
                 "remove with an op in flight");
    touch("tried-remove");
    h.wait();
    check(x[0] == 3.0, "the pending op completes after the refused remove");
  } else if (g_rank == 1) {
    wait_for("tried-remove");
    hvd::allreduce(view(x), view(x), {.op = hvd::ReduceOp::kSum, .name = "pending", .process_set = 1});
  }
  hvd::remove_process_set(a);
  check_throws([&] { hvd::allreduce(view(x), view(x), {.process_set = 1}); }, "process set id 1 is not registered",
               "op on a removed set");
  check_throws([&] { hvd::remove_process_set(a); }, "process set id 1 is not registered", "remove twice");
  auto b = hvd::add_process_set({g_size - 1, 0});
  check(b.id() == 2, "ids are not reused");
  if (b.included()) ops_on(b);
  ops_on(hvd::global_process_set());
}

void off_mode() {
  hvd::init();
  g_rank = hvd::rank();
  check_throws([] { hvd::add_process_set({0}); }, "dynamic process sets are off; start every rank with "
               "HOROVOD_DYNAMIC_PROCESS_SETS=1", "add without dynamic sets");
  ops_on(hvd::global_process_set());
}

void bad_init_mode() {
  check_throws([] { hvd::init({{0, 1}, {1, 1}}); }, "hvd::init(process_sets) [1, 1]: rank 1 is listed twice",
               "init with a duplicate rank");
  check_throws([] { hvd::init({{0, 1}, {0, 1}}); }, "the same ranks are process set 1", "init with a set twice");
  hvd::init();
  g_rank = hvd::rank();
  ops_on(hvd::global_process_set());
}

}  // namespace

int main(int argc, char** argv) {
  const auto mode = hvd::test::worker_mode(argc, argv, 3, "hvd_process_sets static|dynamic|off|bad-init <shared dir>");
  if (!mode) return 2;
  g_dir = argv[2];
  const char* size = std::getenv("HOROVOD_SIZE");
  const char* mpi_size = std::getenv("OMPI_COMM_WORLD_SIZE");
  g_size = size ? std::atoi(size) : mpi_size ? std::atoi(mpi_size) : 1;
  try {
    if (mode == "static") static_mode();
    else if (mode == "dynamic") dynamic_mode();
    else if (mode == "off") off_mode();
    else if (mode == "bad-init") bad_init_mode();
    else return 2;
  } catch (const hvd::Error& e) {
    std::fprintf(stderr, "rank %d: unexpected error: %s\n", g_rank, e.what());
    return 1;
  }
  if (g_failures) return 1;
  std::printf("process sets ok %s rank=%d size=%d\n", mode->c_str(), g_rank, hvd::size());
  hvd::shutdown();
  return 0;
}
