#include "agent/machine_identity.h"

#include <sys/stat.h>

#include <fstream>

namespace hvd::agent {
namespace {

std::string first_line(const char* path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

}  // namespace

std::string machine_identity() {
  std::string identity = "boot=" + first_line("/proc/sys/kernel/random/boot_id");
  identity += " machine=" + first_line("/etc/machine-id");
  struct stat netns {};
  if (::stat("/proc/self/ns/net", &netns) == 0) identity += " netns=" + std::to_string(netns.st_ino);
  return identity;
}

}  // namespace hvd::agent
