// How hvdrun reaches other hosts over SSH: the -p/-i/--ssh-config/--ssh-accept-new flags as one value.
// Precedence for each setting: the host list ("user@h1"), then these flags, then the SSH config file
// (--ssh-config, default ~/.ssh/config and /etc/ssh/ssh_config: HostName, Port, User, IdentityFile), then defaults.
#pragma once

#include <string>

namespace hvd::launcher {

struct SshOptions {
  int port = 0;                 // -p/--ssh-port; 0: from the config, else 22
  std::string identity_file;    // -i/--ssh-identity-file; tried first, before ssh-agent and default keys
  std::string config_file;      // --ssh-config; empty: ~/.ssh/config, then /etc/ssh/ssh_config
  bool accept_new = false;      // --ssh-accept-new: record an unknown host key (never a changed one)
  std::string user;             // default user for hosts named without "user@"; empty: config, then local user
  double connect_timeout_s = 30;  // TCP connect and each SSH step; hvdrun passes --start-timeout
};

}  // namespace hvd::launcher
