// One SSH connection from hvdrun to a host, opened the way OpenSSH would (config, known_hosts, public keys)
// but never prompting. Each step throws SshError with a message that starts with the host, names the cause
// and says what to do. Used by one thread (the host's starter thread); only cancel() may be called from another.
#pragma once

#include <libssh/libssh.h>

#include <memory>
#include <mutex>
#include <string>

#include "common/error.h"
#include "common/unique_fd.h"
#include "launcher/plan/hosts.h"
#include "launcher/ssh/ssh_options.h"

namespace hvd::launcher {

// SSH could not reach, verify, log in to or run the agent on a host: the agent-starting backend failed.
class SshError : public Error {
 public:
  explicit SshError(const std::string& what) : Error(ErrorKind::kBackend, what) {}
};

namespace detail {
struct SshSessionFree {
  void operator()(ssh_session s) const noexcept;  // disconnects and frees
};
struct SshChannelFree {
  void operator()(ssh_channel c) const noexcept;  // closes and frees
};
struct SshKeyFree {
  void operator()(ssh_key k) const noexcept { ssh_key_free(k); }
};
}  // namespace detail

using SshSessionPtr = std::unique_ptr<ssh_session_struct, detail::SshSessionFree>;
using SshChannelPtr = std::unique_ptr<ssh_channel_struct, detail::SshChannelFree>;
using SshKeyPtr = std::unique_ptr<ssh_key_struct, detail::SshKeyFree>;

class SshConnection {
 public:
  // Applies the options: user@ from the host list, then `options`, then the SSH config file. Throws SshError
  // when --ssh-config names a file that cannot be read.
  SshConnection(std::string label, const HostSpec& host, const SshOptions& options);
  ~SshConnection();
  SshConnection(const SshConnection&) = delete;
  SshConnection& operator=(const SshConnection&) = delete;

  // Resolves the name, connects (given up when `wake_fd` becomes readable) and does the SSH handshake.
  void connect(int wake_fd);
  // Checks the server's key against known_hosts; an unknown key is recorded only with accept_new.
  void verify_host_key();
  // Public keys only: -i, then ssh-agent with the config's and the default keys. Never prompts.
  void authenticate();
  // Thread-safe: makes a blocking step in progress fail at once (shuts the socket down).
  void cancel();

  ssh_session session() const { return session_.get(); }
  int fd() const { return socket_.get(); }
  std::string local_address() const;  // this end of the TCP connection; IPv6 in brackets
  const std::string& label() const { return label_; }
  std::string endpoint() const;  // "198.51.100.12:22", for messages

 private:
  void tcp_connect(int wake_fd);

  std::string label_;  // the host as the user named it
  SshOptions options_;
  std::string host_;  // after the config's HostName
  unsigned port_ = 22;
  UniqueFd socket_;  // also handed to libssh, which does not close it (0.10) unless a handshake fails
  SshSessionPtr session_;
  std::mutex cancel_mu_;
  UniqueFd cancel_fd_;  // a dup of socket_, for cancel(); guarded by cancel_mu_
  bool cancelled_ = false;  // guarded by cancel_mu_
};

// Wraps `s` in single quotes for a POSIX shell.
std::string shell_quote(const std::string& s);

}  // namespace hvd::launcher
