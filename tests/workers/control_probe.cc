// Connects to hvdrun's coordination port as an intruder would and checks that it is turned away for what it sent.
//   control_probe HOST PORT wrong-secret   answer the greeting with a proof made from a secret that is not the job's
//   control_probe HOST PORT garbage        send bytes that are no handshake at all
// Passes (exit 0, "rejected: ...") only when hvdrun closes the connection (EOF or reset), having sent nothing past
// its greeting, within half its handshake deadline (ConnectionGate::kHandshakeDeadline, 10 s) of the connection:
// a bad proof is refused at once (in milliseconds; the rest is slack for a loaded machine), whereas hvdrun's
// deadline closes every connection that has not authenticated, a silent one included, so a close at the deadline
// proves nothing about what was sent. Exit 3 otherwise, saying whether the connection was closed only at the
// deadline or was still open after it (watched until the deadline plus 5 s); 1: let in (hvdrun answered past its
// greeting); 2: the port could not be reached, which proves nothing.
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "common/blocking_channel.h"
#include "common/crypto.h"
#include "common/handshake.h"
#include "launcher/session/connection_gate.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Outcome {
  bool closed = false;     // EOF or reset before the deadline
  std::string how;         // "EOF", "connection reset", or why it is unknown
  std::size_t bytes = 0;   // what the server sent before closing
};

// Reads until the server closes, or until `deadline`; keeps the first bytes in `head`.
Outcome read_until_closed(int fd, Clock::time_point deadline, std::string& head, std::size_t head_size) {
  Outcome outcome;
  char buffer[4096];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      outcome.how = "still open";
      return outcome;
    }
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(left));
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) continue;  // the deadline check above ends the loop
    const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n > 0) {
      outcome.bytes += static_cast<std::size_t>(n);
      const std::size_t room = head_size - std::min(head_size, head.size());
      head.append(buffer, std::min(static_cast<std::size_t>(n), room));
      if (outcome.bytes >= head_size) return outcome;  // the caller decides what the bytes mean
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno != ECONNRESET) {
      outcome.how = std::string("read failed: ") + std::strerror(errno);
      return outcome;
    }
    outcome.closed = true;
    outcome.how = n == 0 ? "EOF" : "connection reset";
    return outcome;
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4 || (std::string(argv[3]) != "wrong-secret" && std::string(argv[3]) != "garbage")) {
    std::fprintf(stderr, "usage: control_probe HOST PORT wrong-secret|garbage\n");
    return 64;
  }
  const std::string host = argv[1], mode = argv[3];
  const int port = std::atoi(argv[2]);
  const auto limit = hvd::launcher::ConnectionGate::kHandshakeDeadline;
  using namespace std::chrono_literals;
  hvd::UniqueFd fd;
  try {
    fd = hvd::connect_tcp(host, port, 5s);
  } catch (const std::exception& e) {
    // Not reaching the port proves nothing about authentication: inconclusive, not a pass.
    std::printf("INCONCLUSIVE: %s\n", e.what());
    return 2;
  }
  const auto start = Clock::now();
  const auto pass_by = start + limit / 2;
  const auto deadline = start + limit + 5s;  // past the server's: tells a close at its deadline from a hang
  std::string received;
  Outcome outcome;
  if (mode == "garbage") {
    const std::string junk = hvd::random_bytes(4096);
    // A server that has already closed may make this fail (reset): the read below sees the same close.
    ::send(fd.get(), junk.data(), junk.size(), MSG_NOSIGNAL);
    outcome = read_until_closed(fd.get(), deadline, received, hvd::kServerHelloSize + 1);
    if (!outcome.closed && outcome.bytes > hvd::kServerHelloSize) {
      std::printf("ACCEPTED: the coordinator answered garbage with %zu bytes past its greeting\n",
                  outcome.bytes - hvd::kServerHelloSize);
      return 1;
    }
  } else {
    outcome = read_until_closed(fd.get(), deadline, received, hvd::kServerHelloSize);
    if (outcome.bytes == hvd::kServerHelloSize) {
      std::string proof;
      try {
        proof = hvd::HandshakeClient(hvd::random_bytes(hvd::kSecretSize)).answer(received);
      } catch (const std::exception& e) {
        std::printf("INCONCLUSIVE: %s\n", e.what());
        return 2;
      }
      ::send(fd.get(), proof.data(), proof.size(), MSG_NOSIGNAL);  // a failure shows as the close below
      std::string answer;
      outcome = read_until_closed(fd.get(), deadline, answer, hvd::kServerProofSize);
      if (!outcome.closed && outcome.bytes >= hvd::kServerProofSize) {
        std::printf("ACCEPTED: the coordinator answered a wrong secret's proof with %zu bytes\n", outcome.bytes);
        return 1;
      }
    }
  }
  const auto closed_at = Clock::now();
  const auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(closed_at - start).count();
  const auto ms = [](auto d) { return static_cast<long long>(std::chrono::milliseconds(d).count()); };
  if (!outcome.closed) {
    std::printf("NOT CLOSED: %s: the connection was %s %lld ms after it was made, past the %lld ms handshake "
                "deadline\n", mode.c_str(), outcome.how.c_str(), static_cast<long long>(elapsed), ms(limit));
    return 3;
  }
  if (closed_at >= pass_by) {
    std::printf("NOT REJECTED: %s: closed (%s) only %lld ms after it was made (pass: within %lld ms; the %lld ms "
                "handshake deadline closes even a silent connection)\n", mode.c_str(), outcome.how.c_str(),
                static_cast<long long>(elapsed), ms(limit / 2), ms(limit));
    return 3;
  }
  std::printf("rejected: %s: closed (%s) after %lld ms, within half the %lld s handshake deadline\n", mode.c_str(),
              outcome.how.c_str(), static_cast<long long>(elapsed), static_cast<long long>(limit.count()));
  return 0;
}
