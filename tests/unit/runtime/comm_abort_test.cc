// Communicator::abort from another thread (what the elastic event watcher does on "reset"): an allreduce blocked on
// a peer that is alive but silent (it never enters the op, like a host gone without closing its sockets) fails
// with ErrorKind::kMembership at once, and so does every later call; over shared memory, TCP and both.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <latch>
#include <thread>

#include "hvd/error.h"
#include "tests/unit/runtime/comm_test_util.h"

using namespace hvd;
using namespace std::chrono_literals;

namespace {
// Rank 0 allreduces and is aborted 100 ms in; the other ranks stay silent until it has failed.
void check_abort_unblocks(const test::Job& job) {
  std::latch rank0_done(1);
  std::atomic<bool> membership{false}, later_membership{false};
  std::atomic<long long> waited_ms{0};
  test::run_ranks(job, [&](detail::Communicator& comm, int rank) {
    if (rank != 0) return rank0_done.wait();
    std::jthread watcher([&] {
      std::this_thread::sleep_for(100ms);
      comm.abort("hvdrun is re-forming the job (test)");
    });
    std::vector<float> data(1024, 1.0f);
    const auto start = std::chrono::steady_clock::now();
    try {
      comm.allreduce(data.data(), data.size(), DataType::kFloat32, ReduceOp::kSum);
    } catch (const Error& e) {
      membership = e.kind() == ErrorKind::kMembership && std::string(e.what()).find("(test)") != std::string::npos;
    }
    waited_ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
    try {
      comm.barrier();
    } catch (const Error& e) {
      later_membership = e.kind() == ErrorKind::kMembership;
    }
    rank0_done.count_down();
  });
  CHECK(membership);
  CHECK(later_membership);
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
