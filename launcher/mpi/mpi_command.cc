#include "launcher/mpi/mpi_command.h"

#include <algorithm>

#include "common/error.h"
#include "launcher/flags/shell_words.h"
#include "launcher/plan/worker_env.h"

namespace hvd::launcher {
namespace {

std::string host_list(const std::vector<HostSpec>& hosts) {
  std::string list;
  for (const auto& host : hosts) {
    // Open MPI's -H refuses "user@host" (an illegal character in a node name); ssh takes the user from its config.
    if (!host.user.empty()) {
      throw UsageError("host '" + host.display() + "': mpirun's -H takes no user; drop '" + host.user +
                       "@' and set 'User " + host.user + "' for " + host.name + " in the SSH config (--ssh-config)");
    }
    if (!list.empty()) list += ',';
    list += host.display();
  }
  return list;
}

// Open MPI starts its daemons with ssh; these are the same choices hvdrun's own SSH connections make.
std::string ssh_args(const SshOptions& ssh) {
  std::vector<std::string> args;
  if (ssh.port != 0) args.insert(args.end(), {"-p", std::to_string(ssh.port)});
  if (!ssh.identity_file.empty()) args.insert(args.end(), {"-i", ssh.identity_file});
  if (!ssh.config_file.empty()) args.insert(args.end(), {"-F", ssh.config_file});
  if (ssh.accept_new) args.insert(args.end(), {"-o", "StrictHostKeyChecking=accept-new"});
  std::string joined;
  for (const auto& arg : args) joined += (joined.empty() ? "" : " ") + arg;
  return joined;
}

}  // namespace

std::vector<std::string> mpi_command(const std::string& mpirun, const MpiOptions& options, const Plan& plan,
                                     const std::vector<std::string>& environment, uid_t euid, bool yield_when_idle) {
  std::vector<std::string> argv{mpirun};
  // Open MPI refuses root unless told; in containers root is the norm.
  if (euid == 0) argv.push_back("--allow-run-as-root");
  argv.insert(argv.end(), {"--tag-output", "-np", std::to_string(options.np), "-H", host_list(plan.hosts),
                           "-bind-to", "none", "-map-by", "slot"});
  if (options.prefix_timestamp) argv.push_back("--timestamp-output");
  if (!options.output_dir.empty()) argv.insert(argv.end(), {"--output-filename", options.output_dir});
  if (const auto ssh = ssh_args(options.ssh); !ssh.empty()) argv.insert(argv.end(), {"-mca", "plm_rsh_args", ssh});
  if (!options.network_interface.empty()) {
    argv.insert(argv.end(), {"-mca", "btl_tcp_if_include", options.network_interface, "-mca", "oob_tcp_if_include",
                             options.network_interface});
  }
  if (yield_when_idle) argv.insert(argv.end(), {"-mca", "mpi_yield_when_idle", "1"});

  auto exported = [&](std::string_view name) {
    return std::any_of(options.exports.begin(), options.exports.end(), [&](const auto& e) { return e.first == name; });
  };
  for (const auto& entry : environment) {
    const std::string name = entry.substr(0, entry.find('='));
    // What hvdrun's own agents would give remote workers (PATH, LD_LIBRARY_PATH, HOROVOD_*, NCCL_*, ...), less
    // the placement and job variables: under mpirun the ranks learn their place from Open MPI and need no secret.
    if (is_forwarded_env(name) && !name.starts_with("HVD_") && !exported(name)) argv.insert(argv.end(), {"-x", name});
  }
  for (const auto& [name, value] : options.exports) argv.insert(argv.end(), {"-x", name + '=' + value});

  const auto extra = split_shell_words(options.mpi_args, "--mpi-args");
  argv.insert(argv.end(), extra.begin(), extra.end());
  argv.insert(argv.end(), options.command.begin(), options.command.end());
  return argv;
}

}  // namespace hvd::launcher
