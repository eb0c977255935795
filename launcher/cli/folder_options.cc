#include "launcher/cli/folder_options.h"

namespace hvd::launcher {
namespace {

SshOptions ssh_options(const LaunchOptions& options) {
  return {.port = options.ssh_port,
          .identity_file = options.ssh_identity_file,
          .config_file = options.ssh_config,
          .accept_new = options.ssh_accept_new,
          .user = {},
          .connect_timeout_s = options.start_timeout_s};
}

}  // namespace

SessionOptions session_options(const LaunchOptions& options) {
  SessionOptions session{.hosts = options.hosts,
                         .command = options.command,
                         .exports = options.exports,
                         .start_timeout_s = options.start_timeout_s,
                         .kill_grace_s = options.kill_grace_s,
                         .output_dir = options.output_dir,
                         .report_file = options.report_file,
                         .prefix_timestamp = options.prefix_timestamp,
                         .verbose = options.verbose,
                         .agent_path = options.agent_path,
                         .network_interface = options.network_interface,
                         .coordinator_addr = options.coordinator_addr,
                         .ssh = ssh_options(options),
                         .slurm_job = {},
                         .max_restarts = options.max_restarts,
                         .elastic = options.elastic};
  if (options.launcher == LaunchOptions::Launcher::kSlurm) session.slurm_job = options.slurm_job_id;
  return session;
}

MpiOptions mpi_options(const LaunchOptions& options) {
  return {.np = options.np,
          .command = options.command,
          .exports = options.exports,
          .mpi_args = options.mpi_args,
          .output_dir = options.output_dir,
          .report_file = options.report_file,
          .prefix_timestamp = options.prefix_timestamp,
          .verbose = options.verbose,
          .network_interface = options.network_interface,
          .ssh = ssh_options(options)};
}

}  // namespace hvd::launcher
