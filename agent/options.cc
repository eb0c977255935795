#include "agent/options.h"

#include <errno.h>
#include <unistd.h>

#include <string_view>

#include "common/address.h"
#include "common/crypto.h"
#include "common/error.h"

namespace hvd::agent {

void parse_coordinator(const std::string& text, AgentOptions& options) {
  Address address = parse_address(text, "--coordinator");
  options.coordinator_host = std::move(address.host);
  options.coordinator_port = address.port;
}

void read_secret(int fd, AgentOptions& options) {
  constexpr std::size_t kMaxLine = 4096;
  // Read in chunks, not a byte per call (65 system calls on the launch path): hvdrun writes the line and then
  // nothing but EOF on this stream, so nothing past the newline can be lost.
  std::string line;
  for (;;) {
    char chunk[128];
    ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    std::string_view got(chunk, static_cast<std::size_t>(n));
    const auto newline = got.find('\n');
    line.append(got.substr(0, newline));
    if (line.size() > kMaxLine) throw Error(ErrorKind::kUsage, "the job secret line on stdin is too long");
    if (newline != std::string_view::npos) break;
  }
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
  if (line.empty()) throw Error(ErrorKind::kUsage, "no job secret on stdin (hvdrun writes it there; run the agent through hvdrun)");
  try {
    options.secret = from_hex(line);
  } catch (const Error&) {
    throw Error(ErrorKind::kUsage, "the job secret on stdin is not hex");
  }
  options.secret_hex = line;
}

}  // namespace hvd::agent
