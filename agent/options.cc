#include "agent/options.h"

#include <errno.h>
#include <unistd.h>

#include <charconv>
#include <string_view>

#include "common/crypto.h"
#include "common/error.h"

namespace hvd::agent {

void parse_coordinator(const std::string& text, AgentOptions& options) {
  auto colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size()) {
    throw Error("--coordinator '" + text + "' is not HOST:PORT (e.g. 10.0.0.1:4000)");
  }
  std::string host = text.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  int port = 0;
  auto [end, ec] = std::from_chars(text.data() + colon + 1, text.data() + text.size(), port);
  if (ec != std::errc() || end != text.data() + text.size() || port < 1 || port > 65535) {
    throw Error("--coordinator '" + text + "': the port must be a number from 1 to 65535");
  }
  options.coordinator_host = host;
  options.coordinator_port = port;
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
    if (line.size() > kMaxLine) throw Error("the job secret line on stdin is too long");
    if (newline != std::string_view::npos) break;
  }
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
  if (line.empty()) throw Error("no job secret on stdin (hvdrun writes it there; run the agent through hvdrun)");
  try {
    options.secret = from_hex(line);
  } catch (const Error&) {
    throw Error("the job secret on stdin is not hex");
  }
  options.secret_hex = line;
}

}  // namespace hvd::agent
