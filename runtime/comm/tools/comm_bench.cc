// Raw data-plane timing, outside the test suite (not built by default: ninja comm_bench).
//   comm_bench [-np N] [--op allreduce|allgather|broadcast] [--sizes 8,64K,1M] [--chunk BYTES] [--small BYTES]
//              [--hosts a,b]   (fake host names per rank: "a,b" forces TCP, default all on one host)
//              [--bind 0|1]    (1, the default: rank r pinned to CPU r % cpus, as mpirun binds small jobs)
// Forks N processes that rendezvous through a local store server, like hvdrun would, then rank 0 prints
// "bytes median_us algbw_GBps busbw_GBps" per size (then, as a comment, the best block) (busbw as nccl-tests: allreduce x 2(n-1)/n, allgather x (n-1)/n).
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "runtime/comm/communicator.h"
#include "store/tcp_store.h"
#include "tests/unit/runtime/store_test_server.h"

using namespace hvd;
using Clock = std::chrono::steady_clock;

namespace {
struct Args {
  int np = 2;
  std::string op = "allreduce";
  std::vector<std::size_t> sizes = {8, 1024, 65536, 262144, 1 << 20, 4 << 20, 16 << 20, 64 << 20, 256 << 20};
  std::size_t chunk = 0, small = 0;
  std::vector<std::string> hosts;
  bool bind = true;  // like mpirun's default for small np: rank r on CPU r % cpus
};

std::size_t parse_size(const std::string& s) {
  std::size_t v = std::stoull(s);
  char u = s.back();
  return u == 'K' ? v << 10 : u == 'M' ? v << 20 : u == 'G' ? v << 30 : v;
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, ',');) out.push_back(item);
  return out;
}

// Rank r on the (r % cpus)-th CPU this process may use.
void bind_to_cpu(int rank) {
  cpu_set_t all, one;
  CPU_ZERO(&one);
  if (::sched_getaffinity(0, sizeof all, &all) != 0) return;
  int want = rank % CPU_COUNT(&all);
  for (int cpu = 0, seen = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &all) && seen++ == want) {
      CPU_SET(cpu, &one);
      ::sched_setaffinity(0, sizeof one, &one);
      break;
    }
  }
}

void run_rank(const Args& a, int rank, int port) {
  if (a.bind) bind_to_cpu(rank);
  detail::TcpStore store("127.0.0.1", port, "bench", rank);
  detail::Topology t;
  t.rank = rank;
  t.size = a.np;
  t.hostname = a.hosts.empty() ? "localhost" : a.hosts[static_cast<std::size_t>(rank)];
  detail::CommunicatorOptions o;
  o.secret = "bench";
  o.bind_address = "127.0.0.1";
  o.shm_chunk_bytes = a.chunk;
  o.shm_small_allreduce_bytes = a.small;
  auto comm = detail::connect_communicator(store, t, o);
  const std::size_t most = *std::max_element(a.sizes.begin(), a.sizes.end());
  std::vector<float> in(std::max<std::size_t>(most / 4, 1), 1.0f), out(in.size() * static_cast<std::size_t>(a.np));
  if (rank == 0) std::printf("# %s np=%d  bytes median_us algbw_GBps busbw_GBps\n", a.op.c_str(), a.np);
  for (std::size_t bytes : a.sizes) {
    const std::size_t count = bytes / 4;
    auto once = [&] {
      if (a.op == "allreduce") {
        comm->allreduce(in.data(), count, DataType::kFloat32, ReduceOp::kSum);
      } else if (a.op == "allgather") {
        comm->allgatherv(in.data(), out.data(), std::vector<std::size_t>(static_cast<std::size_t>(a.np), bytes));
      } else {
        comm->broadcast(in.data(), bytes, 0);
      }
    };
    // Blocks of iterations sized to ~50 ms; the median block average is the figure.
    for (int i = 0; i < 3; ++i) once();
    comm->barrier();
    auto t0 = Clock::now();
    once();
    double one = std::chrono::duration<double>(Clock::now() - t0).count();
    int iters = std::clamp(static_cast<int>(0.05 / std::max(one, 1e-7)), 1, 20000);
    std::string agreed = comm->broadcast_from_root(std::to_string(iters));
    iters = std::stoi(agreed);
    std::vector<double> blocks;
    for (int b = 0; b < 7; ++b) {
      comm->barrier();
      auto s = Clock::now();
      for (int i = 0; i < iters; ++i) once();
      blocks.push_back(std::chrono::duration<double>(Clock::now() - s).count() / iters);
    }
    std::sort(blocks.begin(), blocks.end());
    double sec = blocks[blocks.size() / 2];
    double algbw = static_cast<double>(bytes) / sec / 1e9;
    double factor = a.op == "allreduce" ? 2.0 * (a.np - 1) / a.np : a.op == "allgather" ? (a.np - 1.0) / a.np : 1.0;
    double best = static_cast<double>(bytes) / blocks.front() / 1e9;
    if (rank == 0) {
      std::printf("%zu %.3f %.3f %.3f   # best block: %.3f us, busbw %.3f\n", bytes, sec * 1e6, algbw, algbw * factor,
                  blocks.front() * 1e6, best * factor);
    }
    std::fflush(stdout);
  }
}
}  // namespace

int main(int argc, char** argv) {
  Args a;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i], v = argv[i + 1];
    if (k == "-np") a.np = std::stoi(v);
    else if (k == "--op") a.op = v;
    else if (k == "--sizes") {
      a.sizes.clear();
      for (auto& s : split(v)) a.sizes.push_back(parse_size(s));
    } else if (k == "--chunk") a.chunk = parse_size(v);
    else if (k == "--small") a.small = parse_size(v);
    else if (k == "--hosts") a.hosts = split(v);
    else if (k == "--bind") a.bind = v != "0";
  }
  std::vector<int> pipes;
  std::vector<pid_t> children;
  for (int r = 1; r < a.np; ++r) {
    int fds[2];
    if (::pipe(fds) != 0) return 1;
    pid_t pid = ::fork();
    if (pid == 0) {
      int port = 0;
      if (::read(fds[0], &port, sizeof port) != sizeof port) ::_exit(2);
      try {
        run_rank(a, r, port);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "rank %d: %s\n", r, e.what());
        ::_exit(1);
      }
      ::_exit(0);
    }
    ::close(fds[0]);
    pipes.push_back(fds[1]);
    children.push_back(pid);
  }
  test::StoreTestServer server("bench");
  int port = server.port();
  for (int fd : pipes) {
    if (::write(fd, &port, sizeof port) != sizeof port) return 1;
    ::close(fd);
  }
  int rc = 0;
  try {
    run_rank(a, 0, port);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rank 0: %s\n", e.what());
    rc = 1;
  }
  for (pid_t pid : children) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) rc = 1;
  }
  return rc;
}
