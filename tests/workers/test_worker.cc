// A worker for the launcher's integration tests; its first argument picks what it does:
//   env                      print one line with this rank's HOROVOD_* place and hostname
//   spam LINES BYTES         write LINES numbered lines of BYTES payload to stdout and stderr, then an
//                            unterminated last line
//   exit RANK CODE           rank RANK exits with CODE, every other rank exits 0
//   crash RANK DIR           rank RANK dies of SIGSEGV once every other rank hangs: each of them prints its pid,
//                            then creates DIR/started.<attempt>.<rank>, which rank RANK waits for (exit 65 when
//                            they have not all appeared within 60 s); DIR is shared by the hosts of the job
//   fail RANK CODE DIR       the same, but rank RANK exits with CODE
//   hang                     print "pid=<pid>" and sleep until killed
//   secret                   print whether HVD_SECRET is set, and its value
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "tests/workers/worker_args.h"

namespace {

int env_int(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::atoi(v) : -1;
}

const char* env_str(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "(unset)";
}

void print_pid() {
  std::printf("pid=%d\n", static_cast<int>(::getpid()));
  std::fflush(stdout);
}

[[noreturn]] void hang() {
  print_pid();
  for (;;) ::pause();
}

// The marker a hanging rank of `crash` leaves in DIR once its pid line is out; one set per restart attempt.
std::filesystem::path started_marker(const std::string& dir, int rank) {
  const int attempt = std::max(0, env_int("HOROVOD_RESTART_ATTEMPT"));
  return std::filesystem::path(dir) / ("started." + std::to_string(attempt) + "." + std::to_string(rank));
}

// Rank `crasher` raises SIGSEGV (code < 0) or exits with `code` once every other rank hangs (its marker exists);
// the others hang.
int fail_once_others_hang(int crasher, const std::string& dir, int code) {
  const int rank = env_int("HOROVOD_RANK"), size = env_int("HOROVOD_SIZE");
  if (rank != crasher) {
    print_pid();
    std::ofstream(started_marker(dir, rank)).put('\n');
    for (;;) ::pause();
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  for (int r = 0; r < size; ++r) {
    while (r != crasher && !std::filesystem::exists(started_marker(dir, r))) {
      if (std::chrono::steady_clock::now() > deadline) {
        std::fprintf(stderr, "test_worker: rank %d did not start within 60 s (no %s)\n", r,
                     started_marker(dir, r).c_str());
        return 65;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  if (code >= 0) return code;
  ::raise(SIGSEGV);
  return 0;
}

int spam(long lines, long bytes) {
  const int rank = env_int("HOROVOD_RANK");
  std::string payload(static_cast<std::size_t>(bytes), 'x');
  for (long i = 0; i < lines; ++i) {
    std::printf("r%d i%ld %s END\n", rank, i, payload.c_str());
    std::fprintf(stderr, "e%d i%ld %s END\n", rank, i, payload.c_str());
  }
  std::printf("r%d unterminated END", rank);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const auto mode = hvd::test::worker_mode(argc, argv, 2, "test_worker env|spam|exit|crash|fail|hang|secret ...");
  if (!mode) return 64;
  const int rank = env_int("HOROVOD_RANK");
  if (mode == "env") {
    std::printf("rank=%s size=%s local_rank=%s local_size=%s cross_rank=%s cross_size=%s hostname=%s unbuffered=%s\n",
                env_str("HOROVOD_RANK"), env_str("HOROVOD_SIZE"), env_str("HOROVOD_LOCAL_RANK"),
                env_str("HOROVOD_LOCAL_SIZE"), env_str("HOROVOD_CROSS_RANK"), env_str("HOROVOD_CROSS_SIZE"),
                env_str("HOROVOD_HOSTNAME"), env_str("PYTHONUNBUFFERED"));
    return 0;
  }
  if (mode == "spam" && argc == 4) return spam(std::atol(argv[2]), std::atol(argv[3]));
  if (mode == "exit" && argc == 4) return rank == std::atoi(argv[2]) ? std::atoi(argv[3]) : 0;
  if (mode == "crash" && argc == 4) return fail_once_others_hang(std::atoi(argv[2]), argv[3], -1);
  if (mode == "fail" && argc == 5) return fail_once_others_hang(std::atoi(argv[2]), argv[4], std::atoi(argv[3]));
  if (mode == "hang") hang();
  if (mode == "secret") {
    std::printf("secret=%s\n", env_str("HVD_SECRET"));
    return 0;
  }
  std::fprintf(stderr, "test_worker: unknown mode or arguments for '%s'\n", mode->c_str());
  return 64;
}
