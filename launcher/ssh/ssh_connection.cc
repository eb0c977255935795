#include "launcher/ssh/ssh_connection.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <libssh/callbacks.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>

#include "common/address.h"
#include "common/env.h"

namespace hvd::launcher {
namespace detail {

void SshSessionFree::operator()(ssh_session s) const noexcept {
  ssh_disconnect(s);
  ssh_free(s);
}

void SshChannelFree::operator()(ssh_channel c) const noexcept {
  if (ssh_channel_is_open(c)) ssh_channel_close(c);
  ssh_channel_free(c);
}

}  // namespace detail

namespace {

// libssh asks for passphrases through this; we never prompt.
int no_prompt(const char*, char*, size_t, int, int, void*) { return -1; }

std::string numeric_host(const sockaddr* sa, bool bracket_v6) {
  char text[INET6_ADDRSTRLEN] = {};
  if (sa->sa_family == AF_INET) {
    ::inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(sa)->sin_addr, text, sizeof text);
    return text;
  }
  ::inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(sa)->sin6_addr, text, sizeof text);
  return bracket_v6 ? "[" + std::string(text) + "]" : text;
}

std::string get_string_option(ssh_session s, ssh_options_e which) {
  char* value = nullptr;
  if (ssh_options_get(s, which, &value) != SSH_OK || value == nullptr) return {};
  std::string out = value;
  ssh_string_free_char(value);
  return out;
}

// Waits for `fd` to be writable (a connect finished) or `wake_fd` readable; false on timeout.
bool wait_connected(int fd, int wake_fd, int timeout_ms, bool& woken) {
  pollfd fds[2] = {{fd, POLLOUT, 0}, {wake_fd, POLLIN, 0}};
  int rc;
  do {
    rc = ::poll(fds, 2, timeout_ms);
  } while (rc < 0 && errno == EINTR);
  woken = rc > 0 && (fds[1].revents & POLLIN);
  return rc > 0;
}

}  // namespace

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

SshConnection::SshConnection(std::string label, const HostSpec& host, const SshOptions& options)
    : label_(std::move(label)), options_(options), session_(ssh_new()) {
  ssh_session s = session_.get();
  if (s == nullptr) throw SshError(label_ + ": cannot create an SSH session (out of memory)");
  // hosts.cc validated the name; should libssh still refuse it, say so here rather than as a config error.
  if (ssh_options_set(s, SSH_OPTIONS_HOST, host.name.c_str()) != 0) {
    throw SshError(label_ + ": libssh refuses the host name '" + host.name + "': " + ssh_get_error(s));
  }
  if (!options.config_file.empty() && ::access(options.config_file.c_str(), R_OK) != 0) {
    throw SshError(label_ + ": cannot read the SSH config file " + options.config_file + " (" +
                   std::strerror(errno) + "): fix --ssh-config");
  }
  if (ssh_options_parse_config(s, options.config_file.empty() ? nullptr : options.config_file.c_str()) != 0) {
    throw SshError(label_ + ": cannot parse the SSH config " +
                   (options.config_file.empty() ? std::string("~/.ssh/config") : options.config_file) + ": " +
                   ssh_get_error(s));
  }
  // Command-line values win over the config, as with OpenSSH.
  if (options.port > 0) ssh_options_set(s, SSH_OPTIONS_PORT, &options.port);
  if (!host.user.empty()) {
    ssh_options_set(s, SSH_OPTIONS_USER, host.user.c_str());
  } else if (!options.user.empty()) {
    ssh_options_set(s, SSH_OPTIONS_USER, options.user.c_str());
  }
  long timeout_s = std::max(1L, static_cast<long>(options.connect_timeout_s + 0.5));
  ssh_options_set(s, SSH_OPTIONS_TIMEOUT, &timeout_s);
  int off = 0;
  ssh_options_set(s, SSH_OPTIONS_PASSWORD_AUTH, &off);
  ssh_options_set(s, SSH_OPTIONS_KBDINT_AUTH, &off);
  ssh_options_set(s, SSH_OPTIONS_GSSAPI_AUTH, &off);
  host_ = get_string_option(s, SSH_OPTIONS_HOST);
  ssh_options_get_port(s, &port_);

  static ssh_callbacks_struct callbacks = [] {
    ssh_callbacks_struct cb{};
    ssh_callbacks_init(&cb);
    cb.auth_function = no_prompt;
    return cb;
  }();
  ssh_set_callbacks(s, &callbacks);
}

SshConnection::~SshConnection() {
  // libssh 0.10 leaves a socket given through SSH_OPTIONS_FD open, except when a failed handshake closed it.
  bool libssh_holds_socket = socket_.valid() && ssh_get_fd(session_.get()) == socket_.get();
  session_.reset();
  if (!libssh_holds_socket) (void)socket_.release();
}

std::string SshConnection::endpoint() const {
  return Address{host_, port_}.to_string();
}

void SshConnection::tcp_connect(int wake_fd) {
  const Resolved resolved = resolve(host_, port_);
  if (!resolved) {
    throw SshError(label_ + ": name does not resolve (" + host_ + ": " + resolved.error +
                   "): check the name in the host list or the HostName in the SSH config");
  }
  const std::string port = std::to_string(port_);
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::milliseconds(static_cast<long>(options_.connect_timeout_s * 1000));
  std::string failures;
  for (const addrinfo* ai = resolved.list.get(); ai != nullptr; ai = ai->ai_next) {
    std::string where = numeric_host(ai->ai_addr, true) + ":" + port;
    UniqueFd fd(::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol));
    if (!fd.valid()) continue;
    int err = ::connect(fd.get(), ai->ai_addr, ai->ai_addrlen) == 0 ? 0 : errno;
    if (err == EINPROGRESS) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      bool woken = false;
      if (!wait_connected(fd.get(), wake_fd, std::max<int>(0, left.count()), woken)) {
        throw SshError(label_ + ": timed out connecting to " + where + " after " +
                       std::to_string(static_cast<int>(options_.connect_timeout_s)) +
                       " s: is the host up and reachable from here (firewall, address)?");
      }
      if (woken) throw SshError(label_ + ": start cancelled while connecting to " + where);
      socklen_t len = sizeof err;
      ::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &err, &len);
    }
    if (err == 0) {
      ::fcntl(fd.get(), F_SETFL, ::fcntl(fd.get(), F_GETFL) & ~O_NONBLOCK);
      int one = 1;
      ::setsockopt(fd.get(), SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
      socket_ = std::move(fd);
      return;
    }
    if (err == ECONNREFUSED) {
      failures += (failures.empty() ? "" : "; ") + std::string("connection refused by ") + where;
    } else {
      failures += (failures.empty() ? "" : "; ") + std::string("cannot reach ") + where + " (" + std::strerror(err) + ")";
    }
  }
  std::string hint = failures.find("refused") != std::string::npos
                         ? ": is sshd running there, and is the port right (-p/--ssh-port, Port in the SSH config)?"
                         : ": is the host up and reachable from here?";
  throw SshError(label_ + ": " + (failures.empty() ? "no usable address for " + host_ : failures) + hint);
}

void SshConnection::connect(int wake_fd) {
  tcp_connect(wake_fd);
  {
    std::lock_guard lock(cancel_mu_);
    if (cancelled_) throw SshError(label_ + ": start cancelled");
    cancel_fd_.reset(::fcntl(socket_.get(), F_DUPFD_CLOEXEC, 0));
  }
  int fd = socket_.get();
  ssh_options_set(session_.get(), SSH_OPTIONS_FD, &fd);
  if (ssh_connect(session_.get()) != SSH_OK) {
    throw SshError(label_ + ": SSH handshake with " + endpoint() + " failed: " + ssh_get_error(session_.get()));
  }
}

void SshConnection::cancel() {
  std::lock_guard lock(cancel_mu_);
  cancelled_ = true;
  if (cancel_fd_.valid()) ::shutdown(cancel_fd_.get(), SHUT_RDWR);
}

std::string SshConnection::local_address() const {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  if (::getsockname(socket_.get(), reinterpret_cast<sockaddr*>(&addr), &len) != 0) return {};
  return numeric_host(reinterpret_cast<const sockaddr*>(&addr), true);
}

void SshConnection::verify_host_key() {
  ssh_session s = session_.get();
  ssh_key raw = nullptr;
  if (ssh_get_server_publickey(s, &raw) != SSH_OK) {
    throw SshError(label_ + ": no host key from " + endpoint() + ": " + ssh_get_error(s));
  }
  SshKeyPtr key(raw);
  unsigned char* hash = nullptr;
  size_t hash_len = 0;
  std::string fingerprint = "?";
  if (ssh_get_publickey_hash(key.get(), SSH_PUBLICKEY_HASH_SHA256, &hash, &hash_len) == 0) {
    char* text = ssh_get_fingerprint_hash(SSH_PUBLICKEY_HASH_SHA256, hash, hash_len);
    if (text != nullptr) fingerprint = text;
    ssh_string_free_char(text);
    ssh_clean_pubkey_hash(&hash);
  }
  std::string key_text = std::string(ssh_key_type_to_char(ssh_key_type(key.get()))) + " " + fingerprint;
  std::string file = get_string_option(s, SSH_OPTIONS_KNOWNHOSTS);
  std::string entry = port_ == 22 ? host_ : "[" + host_ + "]:" + std::to_string(port_);
  switch (ssh_session_is_known_server(s)) {
    case SSH_KNOWN_HOSTS_OK:
      return;
    case SSH_KNOWN_HOSTS_CHANGED:
    case SSH_KNOWN_HOSTS_OTHER:
      throw SshError(label_ + ": HOST KEY CHANGED: " + entry + " now presents " + key_text +
                     ", which does not match the key recorded in " + file +
                     ". Someone may be intercepting the connection; if the host was reinstalled, remove the old "
                     "key with `ssh-keygen -R " + entry + " -f " + file + "` and connect again (no flag overrides "
                     "this)");
    case SSH_KNOWN_HOSTS_UNKNOWN:
    case SSH_KNOWN_HOSTS_NOT_FOUND:
      if (options_.accept_new) {
        if (ssh_session_update_known_hosts(s) != SSH_OK) {
          throw SshError(label_ + ": cannot record the host key of " + entry + " in " + file + ": " +
                         ssh_get_error(s));
        }
        return;
      }
      throw SshError(label_ + ": host key unknown: " + entry + " presents " + key_text + ", which is not in " +
                     file + ". Check the fingerprint, then trust it with `ssh-keyscan -p " + std::to_string(port_) +
                     " " + host_ + " >> " + file + "`, or pass --ssh-accept-new to record it on first use");
    case SSH_KNOWN_HOSTS_ERROR:
      break;
  }
  throw SshError(label_ + ": cannot check the host key of " + entry + " against " + file + ": " + ssh_get_error(s));
}

void SshConnection::authenticate() {
  ssh_session s = session_.get();
  std::string tried;
  if (!options_.identity_file.empty()) {
    ssh_key raw = nullptr;
    int rc = ssh_pki_import_privkey_file(options_.identity_file.c_str(), nullptr, no_prompt, nullptr, &raw);
    SshKeyPtr key(raw);
    if (rc == SSH_EOF) {
      throw SshError(label_ + ": cannot read the identity file " + options_.identity_file + ": fix -i");
    }
    if (rc != SSH_OK) {
      tried = "identity file " + options_.identity_file + " (unusable: passphrase-protected or not a private "
              "key; load it into ssh-agent instead)";
    } else {
      if (ssh_userauth_publickey(s, nullptr, key.get()) == SSH_AUTH_SUCCESS) return;
      tried = "identity file " + options_.identity_file + " (rejected)";
    }
  }
  if (ssh_userauth_publickey_auto(s, nullptr, nullptr) == SSH_AUTH_SUCCESS) return;
  if (!tried.empty()) tried += ", ";
  tried += env_var::text("SSH_AUTH_SOCK") ? "ssh-agent keys" : "no ssh-agent (SSH_AUTH_SOCK unset)";
  tried += ", the SSH config's IdentityFile and the default keys in ~/.ssh";
  std::string user = get_string_option(s, SSH_OPTIONS_USER);
  int methods = ssh_userauth_list(s, nullptr);
  std::string server;
  if (methods & SSH_AUTH_METHOD_PUBLICKEY) server += " publickey";
  if (methods & SSH_AUTH_METHOD_PASSWORD) server += " password";
  if (methods & SSH_AUTH_METHOD_INTERACTIVE) server += " keyboard-interactive";
  if (methods & SSH_AUTH_METHOD_GSSAPI_MIC) server += " gssapi";
  throw SshError(label_ + ": authentication failed for " + user + "@" + endpoint() + ": tried public keys: " +
                 tried + (server.empty() ? "" : "; the server accepts:" + server) +
                 ". Pass the right key with -i, add it to ssh-agent, or add your public key to ~/.ssh/authorized_keys "
                 "on " + label_ + " (hvdrun never asks for passwords)");
}

}  // namespace hvd::launcher
