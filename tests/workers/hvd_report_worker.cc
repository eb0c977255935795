// A worker for the root-cause report's tests (report_*.sh): every rank runs a few allreduces, then rank CULPRIT
// does what MODE says while every other rank waits in allreduce 'wait' (catching hvd::Error, printing it and
// exiting 1, as a careful C++ program does):
//   throw CULPRIT            throws std::runtime_error("boom on rank R: ...") that nobody catches
//   exit CULPRIT CODE        writes "rank R: giving up (bad shard 7)" to stderr and calls std::exit(CODE); its
//                            exit then takes 1 s more after hvd's shutdown (a checkpoint being flushed, SIGTERM
//                            ignored meanwhile), so the ranks that fail because of it exit before it does
//   segv CULPRIT             writes a line to stderr and dies of SIGSEGV
//   sigkill CULPRIT          dies of SIGKILL
//   stall CULPRIT            never submits 'wait': sleeps until stopped
//   mismatch CULPRIT         submits 'wait' with shape [8] where the others send [16]; nobody catches the error
//   mismatch-caught CULPRIT LATE
//                            the same mismatch, caught by every rank; then an allreduce that succeeds, and rank LATE
//                            exits 3 a second later (the job's only cause)
// Every rank prints "pid=<pid>" first.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "hvd/hvd.h"
#include "tests/workers/worker_args.h"

namespace {

bool g_linger = false;  // exit mode's culprit: its exit lingers after hvd's own atexit shutdown

void linger() {
  if (g_linger) std::this_thread::sleep_for(std::chrono::seconds(1));
}

void allreduce(std::vector<float>& v, const char* name) {
  hvd::TensorView t{v.data(), hvd::DataType::kFloat32, {static_cast<std::int64_t>(v.size())}, {}};
  hvd::allreduce(t, t, {hvd::ReduceOp::kSum, 1, 1, name});
}

// The culprit's part; returns the exit code (mismatch-caught), or never returns.
int culprit(const std::string& mode, int rank, int arg) {
  std::vector<float> eight(8, 1.0f);
  if (mode == "throw")
    throw std::runtime_error("boom on rank " + std::to_string(rank) + ": the loader found no shard 7");
  if (mode == "exit") {
    std::fprintf(stderr, "rank %d: giving up (bad shard 7)\n", rank);
    ::signal(SIGTERM, SIG_IGN);
    g_linger = true;
    std::exit(arg);
  }
  if (mode == "segv") {
    std::fprintf(stderr, "rank %d: about to read through a null pointer\n", rank);
    std::fflush(stderr);
    ::raise(SIGSEGV);
  }
  if (mode == "sigkill") ::raise(SIGKILL);
  if (mode == "stall") std::this_thread::sleep_for(std::chrono::hours(1));
  if (mode == "mismatch") allreduce(eight, "wait");
  std::fprintf(stderr, "hvd_report_worker: unknown mode '%s'\n", mode.c_str());
  return 2;
}

int caught_mismatch(int rank, int culprit_rank, int late) {
  std::vector<float> v(rank == culprit_rank ? 8 : 16, 1.0f);
  try {
    allreduce(v, "mm");
  } catch (const hvd::Error& e) {
    std::printf("rank %d: caught: %s\n", rank, e.what());
  }
  std::vector<float> ok(4, 1.0f);
  allreduce(ok, "after");
  std::fflush(stdout);
  if (rank != late) {
    std::this_thread::sleep_for(std::chrono::hours(1));
    return 0;
  }
  std::this_thread::sleep_for(std::chrono::seconds(1));
  std::fprintf(stderr, "rank %d: the evaluation set is missing\n", rank);
  return 3;
}

}  // namespace

int main(int argc, char** argv) {
  const auto mode = hvd::test::worker_mode(argc, argv, 3, "hvd_report_worker MODE CULPRIT [ARG]");
  if (!mode) return 2;
  const int culprit_rank = std::atoi(argv[2]);
  const int arg = argc > 3 ? std::atoi(argv[3]) : 0;
  std::printf("pid=%d\n", static_cast<int>(::getpid()));
  std::fflush(stdout);
  std::atexit(linger);  // before hvd::init(): runs after hvd's own atexit shutdown
  hvd::init();
  const int rank = hvd::rank();
  std::vector<float> v(16, 1.0f);
  for (int i = 0; i < 3; ++i) allreduce(v, "warmup");
  if (mode == "mismatch-caught") return caught_mismatch(rank, culprit_rank, arg);
  if (rank == culprit_rank) return culprit(*mode, rank, arg);
  if (mode == "mismatch") {
    allreduce(v, "wait");  // uncaught, as the culprit's
    return 0;
  }
  try {
    allreduce(v, "wait");
    std::printf("rank %d: 'wait' completed\n", rank);
    return 0;
  } catch (const hvd::Error& e) {
    std::printf("rank %d: failed: %s\n", rank, e.what());
    return 1;
  }
}
