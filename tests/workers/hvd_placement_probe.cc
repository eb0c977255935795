// Prints where this rank may run once hvd::init() has placed it, for a program with no framework (what
// hvd-bench is): "placement rank=R local_size=L main=CPUS threads=CPUS|CPUS...", CPUS as the kernel's
// Cpus_allowed_list: the main thread's, then every thread's, distinct and sorted
// (tests/integration/launcher_placement.sh).
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "hvd/hvd.h"

namespace {

std::string allowed(const std::filesystem::path& status) {
  std::ifstream in(status);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("Cpus_allowed_list:", 0) == 0) return line.substr(line.find_first_not_of(" \t", 18));
  }
  return "?";
}

}  // namespace

int main() {
  hvd::init();
  float x = 1;
  hvd::TensorView view;
  view.data = &x;
  view.shape = {1};
  hvd::allreduce(view, view);  // the engine has run a cycle
  std::set<std::string> threads;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
    threads.insert(allowed(task.path() / "status"));
  }
  std::string joined;
  for (const auto& t : threads) joined += (joined.empty() ? "" : "|") + t;
  std::printf("placement rank=%d local_size=%d main=%s threads=%s\n", hvd::rank(), hvd::local_size(),
              allowed("/proc/self/status").c_str(), joined.c_str());
  hvd::shutdown();
  return 0;
}
