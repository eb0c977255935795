// Communicator::abort from another thread (what the elastic event watcher does on "reset"): an allreduce blocked on
// a peer that is alive but silent (it never enters the op, like a host gone without closing its sockets) fails
// with ErrorKind::kMembership at once, and so does every later call; over shared memory, TCP and both.
#include <doctest/doctest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <latch>
#include <string>
#include <thread>

#include "hvd/error.h"
#include "tests/unit/runtime/comm_test_util.h"

using namespace hvd;
using namespace std::chrono_literals;

namespace {

// The scheduler state of thread `tid` of this process, from /proc (R running, S sleeping, D uninterruptible).
char thread_state(pid_t tid) {
  std::ifstream stat("/proc/self/task/" + std::to_string(tid) + "/stat");
  std::string line;
  std::getline(stat, line);
  const auto close = line.rfind(')');  // the name in parentheses may hold spaces
  return close != std::string::npos && close + 2 < line.size() ? line[close + 2] : '?';
}

// Rank 0 allreduces; once its thread sleeps in the kernel inside the op (the shared memory wait spins first, then
// sleeps on a futex; TCP sleeps in poll), it is really blocked on its silent peers, and another thread aborts it.
// Aborted earlier, the op would fail at its first check and the wake-up of a blocked wait would go untested.
// The other ranks stay silent until rank 0 has failed.
void check_abort_unblocks(const test::Job& job) {
  std::latch rank0_done(1);
  std::atomic<bool> membership{false}, later_membership{false}, blocked{false}, returned{false};
  std::atomic<long long> waited_ms{-1};
  test::run_ranks(job, [&](detail::Communicator& comm, int rank) {
    if (rank != 0) return rank0_done.wait();
    const pid_t tid = ::gettid();
    std::atomic<bool> in_op{false};
    std::atomic<std::chrono::steady_clock::time_point> aborted_at{};
    std::jthread watcher([&] {
      in_op.wait(false);
      const auto give_up = std::chrono::steady_clock::now() + 20s;
      while (std::chrono::steady_clock::now() < give_up) {
        const char state = thread_state(tid);
        if (state == 'S' || state == 'D') {
          blocked = true;
          break;
        }
        std::this_thread::sleep_for(1ms);  // polling /proc: the state change has no notification
      }
      aborted_at = std::chrono::steady_clock::now();
      comm.abort({.code = StopCode::kReform, .event = 77});
      // An abort that leaves the op blocked would hang this test (the peers wait for rank 0): fail it instead.
      const auto limit = std::chrono::steady_clock::now() + 30s;
      while (!returned.load() && std::chrono::steady_clock::now() < limit) std::this_thread::sleep_for(10ms);
      if (!returned.load()) {
        std::fprintf(stderr, "FAIL: the allreduce blocked on a silent peer did not return within 30 s of abort()\n");
        std::_Exit(1);
      }
    });
    std::vector<float> data(1024, 1.0f);
    in_op = true;
    in_op.notify_one();
    try {
      comm.allreduce(data.data(), data.size(), DataType::kFloat32, ReduceOp::kSum);
    } catch (const Error& e) {
      membership = e.kind() == ErrorKind::kMembership && std::string(e.what()).find("(elastic event 77:") != std::string::npos;
    }
    returned = true;
    const auto now = std::chrono::steady_clock::now();
    if (const auto at = aborted_at.load(); at != std::chrono::steady_clock::time_point{}) {
      waited_ms = std::chrono::duration_cast<std::chrono::milliseconds>(now - at).count();
    }
    try {
      comm.barrier();
    } catch (const Error& e) {
      later_membership = e.kind() == ErrorKind::kMembership;
    }
    rank0_done.count_down();
  });
  CHECK_MESSAGE(blocked, "rank 0's thread never slept inside the allreduce within 20 s");
  CHECK(membership);
  CHECK(later_membership);
  CHECK(waited_ms >= 0);  // it returned after the abort, not on its own before it
  CHECK(waited_ms < 5000);
}
}  // namespace

TEST_CASE("abort unblocks an allreduce waiting on a silent peer: shared memory") {
  check_abort_unblocks(test::one_host(2));
}

TEST_CASE("abort unblocks an allreduce waiting on a silent peer: TCP") {
  check_abort_unblocks(test::hosts({"h0", "h1"}));
}

TEST_CASE("abort unblocks an allreduce waiting on a silent peer: hierarchical") {
  check_abort_unblocks(test::hosts({"h0", "h0", "h1"}));
}
