// Connects to hvdrun's coordination port as an intruder would and reports whether it was turned away.
//   control_probe HOST PORT wrong-secret   handshake with a secret that is not the job's
//   control_probe HOST PORT garbage        send bytes that are no handshake at all
// Prints "rejected: <why>" and exits 0 when the server dropped it; exits 1 when it was let in, 2 when the port
// could not be reached at all.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "common/blocking_channel.h"
#include "common/crypto.h"

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: control_probe HOST PORT wrong-secret|garbage\n");
    return 64;
  }
  const std::string host = argv[1], mode = argv[3];
  const int port = std::atoi(argv[2]);
  using namespace std::chrono_literals;
  hvd::UniqueFd fd;
  try {
    fd = hvd::connect_tcp(host, port, 5s);
  } catch (const std::exception& e) {
    // Not reaching the port proves nothing about authentication: inconclusive, not a pass.
    std::printf("INCONCLUSIVE: %s\n", e.what());
    return 2;
  }
  try {
    if (mode == "garbage") {
      std::string junk = hvd::random_bytes(4096);
      hvd::write_all(fd.get(), junk.data(), junk.size(), "probe");
      char byte;
      for (;;) hvd::read_exact(fd.get(), &byte, 1, 5s, "probe");  // drains the greeting until dropped
    }
    hvd::BlockingChannel channel(std::move(fd), hvd::random_bytes(hvd::kSecretSize), "coordinator", 5s);
    channel.send({{"type", "hello"}, {"role", "store"}, {"rank", 0}});
    channel.send({{"op", "get"}, {"key", "anything"}, {"timeout_ms", 100}});
    channel.recv(5s);
  } catch (const std::exception& e) {
    std::printf("rejected: %s\n", e.what());
    return 0;
  }
  std::printf("ACCEPTED: the coordinator let an intruder in\n");
  return 1;
}
