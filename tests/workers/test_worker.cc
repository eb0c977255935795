// A worker for the launcher's integration tests; its first argument picks what it does:
//   env                      print one line with this rank's HOROVOD_* place and hostname
//   spam LINES BYTES         write LINES numbered lines of BYTES payload to stdout and stderr, then an
//                            unterminated last line
//   exit RANK CODE           rank RANK exits with CODE, every other rank exits 0
//   crash RANK               rank RANK dies of SIGSEGV, every other rank hangs
//   hang                     print "pid=<pid>" and sleep until killed
//   secret                   print whether HVD_SECRET is set, and its value
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

int env_int(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::atoi(v) : -1;
}

const char* env_str(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "(unset)";
}

[[noreturn]] void hang() {
  std::printf("pid=%d\n", static_cast<int>(::getpid()));
  std::fflush(stdout);
  for (;;) ::pause();
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
  if (argc < 2) {
    std::fprintf(stderr, "usage: test_worker env|spam|exit|crash|hang|secret ...\n");
    return 64;
  }
  const std::string mode = argv[1];
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
  if (mode == "crash" && argc == 3) {
    if (rank != std::atoi(argv[2])) hang();
    ::usleep(300'000);  // let the others start hanging first
    ::raise(SIGSEGV);
    return 0;
  }
  if (mode == "hang") hang();
  if (mode == "secret") {
    std::printf("secret=%s\n", env_str("HVD_SECRET"));
    return 0;
  }
  std::fprintf(stderr, "test_worker: unknown mode or arguments for '%s'\n", mode.c_str());
  return 64;
}
