#include "launcher/cli/options.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <limits>
#include <optional>

#include "common/env.h"
#include "common/error.h"
#include "launcher/flags/flag_values.h"
#include "launcher/cli/version.h"
#include "launcher/plan/plan.h"
#include "launcher/flags/shell_words.h"
#include "launcher/slurm/slurm_env.h"
#include "launcher/plan/worker_env.h"

extern char** environ;

namespace hvd::launcher {
namespace {

constexpr std::string_view kUsage = "hvdrun [options] [--] COMMAND [ARGS...]";
constexpr std::array<std::string_view, 6> kLogLevels = {"trace", "debug", "info", "warning", "error", "off"};

// Flags whose values need checking arrive as text, so that each error can name the value and the fix.
struct RawFlags {
  std::string np, hosts, hostfile, start_timeout, kill_grace, ssh_port, launcher, max_restarts;
  std::vector<std::string> exports;
  bool version = false;
  // Horovod's tuning flags: each becomes the worker variable of the same meaning (tuning_exports).
  std::string timeline_filename, autotune_log_file;
  ElasticFlags elastic;
  bool timeline_mark_cycles = false, autotune = false;
};

// --timeline-filename F and friends set the HOROVOD_* variables libhvd reads, after -x (so they win).
std::vector<std::string> tuning_exports(const CLI::App& app, const RawFlags& raw) {
  std::vector<std::string> out;
  if (app.count("--timeline-filename") > 0) {
    if (raw.timeline_filename.empty()) throw UsageError("--timeline-filename is empty; give the trace file's path");
    out.push_back("HOROVOD_TIMELINE=" + raw.timeline_filename);
  }
  if (raw.timeline_mark_cycles) out.push_back("HOROVOD_TIMELINE_MARK_CYCLES=1");
  if (raw.autotune) out.push_back("HOROVOD_AUTOTUNE=1");
  if (app.count("--autotune-log-file") > 0) {
    if (raw.autotune_log_file.empty()) throw UsageError("--autotune-log-file is empty; give the CSV file's path");
    out.push_back("HOROVOD_AUTOTUNE_LOG=" + raw.autotune_log_file);
  }
  return out;
}

// A default as --help shows it ("5", "0.5"), read from the LaunchOptions value so the help cannot drift from it.
std::string shortest(double value) {
  char text[32];
  return std::string(text, std::to_chars(text, text + sizeof text, value).ptr);
}

void check_readable(std::string_view flag, const std::string& path) {
  if (!std::ifstream(path)) {
    throw UsageError(std::string{flag} + " '" + path + "': cannot read it (" + std::strerror(errno) +
                     "); check the path");
  }
}

bool is_env_name(std::string_view name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name.front()))) return false;
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

void add_export(LaunchOptions& options, const std::string& text, const char* const* environ_) {
  const auto equals = text.find('=');
  std::string name = text.substr(0, equals);
  if (!is_env_name(name)) {
    throw UsageError("-x '" + text + "': '" + name + "' is not a variable name; write -x NAME or -x NAME=VALUE");
  }
  if (is_reserved_env(name)) throw UsageError("-x " + name + ": hvdrun sets it for each rank; drop -x " + name);
  std::string value;
  if (equals != std::string::npos) {
    value = text.substr(equals + 1);
  } else if (auto found = env_var::from_entries(environ_)(name)) {
    value = std::move(*found);
  } else {
    throw UsageError("-x " + name + ": " + name + " is not set in hvdrun's environment; export it or write -x " + name +
                     "=VALUE");
  }
  std::erase_if(options.exports, [&](const auto& entry) { return entry.first == name; });
  options.exports.emplace_back(std::move(name), std::move(value));
}

// With --mpi, mpirun starts, watches and stops the ranks; these flags steer hvdrun's own agents.
void refuse_agent_flags_with_mpi(const CLI::App& app) {
  for (const std::string flag : {"--check-hosts", "--start-timeout", "--kill-grace", "--agent-path",
                                 "--coordinator-addr", "--launcher", "--max-restarts"}) {
    if (app.count(flag) > 0) {
      throw UsageError(flag + " does not apply with --mpi (mpirun starts and stops the ranks); drop " + flag +
                       ", or drop --mpi");
    }
  }
}

// --launcher, or srun inside a Slurm allocation: returns the allocation when agents start with srun.
std::optional<SlurmAllocation> choose_launcher(LaunchOptions& options, const std::string& flag,
                                               const char* const* environ_) {
  if (!flag.empty() && flag != "ssh" && flag != "slurm") {
    throw UsageError("--launcher '" + flag + "' is unknown; use ssh or slurm");
  }
  auto allocation = flag == "ssh" ? std::nullopt : slurm_allocation(environ_);
  if (flag == "slurm" && !allocation) {
    throw UsageError(
        "--launcher slurm: not inside a Slurm allocation (SLURM_JOB_ID or SLURM_JOB_NODELIST unset); run "
        "hvdrun under salloc or sbatch, or use --launcher ssh");
  }
  if (!allocation || options.mpi) return std::nullopt;  // mpirun reads the allocation itself
  options.launcher = LaunchOptions::Launcher::kSlurm;
  options.slurm_job_id = allocation->job_id;
  return allocation;
}

// CLI11 stops at the first positional (prefix_command) and leaves it and everything after it, verbatim, in
// remaining(); anything it did not recognise before that lands there too, first.
std::vector<std::string> take_command(const std::vector<std::string>& remaining, int argc, const char* const* argv) {
  if (remaining.empty()) return {};
  if (remaining.front() != "--" && remaining.front().starts_with('-')) {
    throw UsageError("unknown flag '" + remaining.front() +
                     "'; see hvdrun --help (the command goes after the "
                     "options, or after --)");
  }
  const int first = argc - static_cast<int>(remaining.size());
  // -np was rewritten for CLI11; the command's own arguments come from the untouched argv.
  std::vector<std::string> command(argv + first, argv + argc);
  if (!command.empty() && command.front() == "--") command.erase(command.begin());
  return command;
}

// -H, --hostfile or the Slurm allocation, and -np; returns whether -np was given.
bool resolve_hosts(LaunchOptions& options, const RawFlags& raw, const CLI::App& app, const char* const* environ_) {
  const bool np_given = app.count("--num-proc") > 0;
  if (np_given) options.np = flag_int("-np", raw.np, 1, 1 << 20, "-np 4");
  if (app.count("--hosts") > 0 && app.count("--hostfile") > 0) {
    throw UsageError("-H and --hostfile both given; use one of them");
  }
  const auto allocation = choose_launcher(options, app.count("--launcher") > 0 ? raw.launcher : "", environ_);
  if (app.count("--hosts") > 0) {
    options.hosts = parse_host_list(raw.hosts);
  } else if (app.count("--hostfile") > 0) {
    options.hosts = parse_hostfile(raw.hostfile);
  } else if (allocation) {
    options.hosts = allocation->hosts;
  } else {
    if (!np_given) options.np = 1;
    options.hosts = {HostSpec{"", "localhost", options.np}};
  }
  if (!np_given) options.np = total_slots(options.hosts);
  if (allocation) check_against_allocation(options.hosts, options.np, *allocation);
  return np_given;
}

// --start-timeout (else HOROVOD_START_TIMEOUT), --kill-grace, --log-level, --output-filename and --report.
void resolve_job_flags(LaunchOptions& options, const RawFlags& raw, const CLI::App& app, const char* const* environ_) {
  if (app.count("--start-timeout") > 0) {
    options.start_timeout_s = flag_seconds("--start-timeout", raw.start_timeout, false, "give e.g. --start-timeout 30");
  } else if (auto seconds = env_var::real(env_var::from_entries(environ_), "HOROVOD_START_TIMEOUT",
                                          {std::nextafter(0.0, 1.0), std::numeric_limits<double>::max(),
                                           "a number of seconds above 0; fix or unset it"})) {
    options.start_timeout_s = *seconds;
  }
  if (app.count("--kill-grace") > 0) {
    options.kill_grace_s = flag_seconds("--kill-grace", raw.kill_grace, true, "give e.g. --kill-grace 5");
  }
  if (std::find(kLogLevels.begin(), kLogLevels.end(), options.log_level) == kLogLevels.end()) {
    throw UsageError("--log-level '" + options.log_level +
                     "' is unknown; use trace, debug, info, warning, error "
                     "or off");
  }
  if (app.count("--output-filename") > 0 && options.output_dir.empty()) {
    throw UsageError("--output-filename is empty; give a directory");
  }
  if (app.count("--report") > 0 && options.report_file.empty()) {
    throw UsageError("--report is empty; give a file to write the JSON report to");
  }
}

// How agents on other hosts are reached (SSH, --agent-path, the coordinator's address), and --mpi-args.
void resolve_remote_flags(LaunchOptions& options, const RawFlags& raw, const CLI::App& app) {
  if (app.count("--ssh-port") > 0) options.ssh_port = flag_int("--ssh-port", raw.ssh_port, 1, 65535, "-p 22");
  if (!options.ssh_identity_file.empty()) check_readable("--ssh-identity-file", options.ssh_identity_file);
  if (!options.ssh_config.empty()) check_readable("--ssh-config", options.ssh_config);
  if (app.count("--agent-path") > 0 && !options.agent_path.starts_with('/')) {
    throw UsageError("--agent-path '" + options.agent_path +
                     "' is not an absolute path; give the full path of "
                     "hvd-agent on the remote hosts");
  }
  if (!options.network_interface.empty() && !options.coordinator_addr.empty()) {
    throw UsageError("--network-interface and --coordinator-addr both given; use one of them");
  }
  if (!options.mpi_args.empty() && !options.mpi) throw UsageError("--mpi-args needs --mpi; add --mpi");
  // A bad quote is bad input, found before mpirun is looked for.
  if (options.mpi) split_shell_words(options.mpi_args, "--mpi-args");
}

// A command, unless a preflight runs instead of one.
void check_command(const LaunchOptions& options) {
  const bool check_only = options.check_hosts || options.check_build;
  if (check_only && !options.command.empty()) {
    throw UsageError(std::string{options.check_hosts ? "--check-hosts" : "--check-build"} + " runs no command; drop '" +
                     options.command.front() + "'");
  }
  if (!check_only && options.command.empty()) {
    throw UsageError("no command given; usage: " + std::string{kUsage});
  }
}

void resolve(LaunchOptions& options, const RawFlags& raw, const CLI::App& app, const char* const* environ_) {
  if (options.mpi) refuse_agent_flags_with_mpi(app);
  const bool np_given = resolve_hosts(options, raw, app, environ_);
  if (app.count("--max-restarts") > 0) {
    options.max_restarts = flag_int("--max-restarts", raw.max_restarts, 0, 1000, "--max-restarts 3");
  }
  check_plan_fits(options.hosts, options.np);  // the shortfall, naming the hosts; main.cc makes the plan
  options.elastic = resolve_elastic(raw.elastic, app,
                                    {.np_given = np_given,
                                     .mpi = options.mpi,
                                     .max_restarts = options.max_restarts > 0 || app.count("--max-restarts") > 0,
                                     .slurm = options.launcher == LaunchOptions::Launcher::kSlurm},
                                    options.np);
  resolve_job_flags(options, raw, app, environ_);
  for (const auto& text : raw.exports) add_export(options, text, environ_);
  for (const auto& text : tuning_exports(app, raw)) add_export(options, text, environ_);
  resolve_remote_flags(options, raw, app);
  check_command(options);
}

void define_flags(CLI::App& app, LaunchOptions& options, RawFlags& raw) {
  app.prefix_command();
  app.set_help_flag("-h,--help", "Print this help and exit");
  app.footer(std::string{"Usage: "} + std::string{kUsage} +
             "\nThe first argument that is not an option starts the command: everything after it is the "
             "command's.\nExample: hvdrun -np 4 -H h1:2,h2:2 ./train --epochs 1");
  app.add_flag("--version", raw.version, "Print the version and exit");
  app.add_option("-n,--num-proc", raw.np, "Number of ranks (also -np); default: every slot, or 1")->type_name("N");
  app.add_option("-H,--hosts", raw.hosts, "Hosts and slots: h1:4,user@h2:4 (a bare host has 1 slot)")
      ->type_name("HOSTS");
  app.add_option("--hostfile", raw.hostfile, "File of hosts: 'host slots=N', 'host:N' or 'host' per line")
      ->type_name("FILE");
  app.add_option(
         "--start-timeout", raw.start_timeout,
         "Seconds for every agent to connect (" + shortest(options.start_timeout_s) + "; env HOROVOD_START_TIMEOUT)")
      ->type_name("SECONDS");
  app.add_option("--kill-grace", raw.kill_grace,
                 "Seconds between SIGTERM and SIGKILL at teardown (" + shortest(options.kill_grace_s) + ")")
      ->type_name("SECONDS");
  app.add_option("--output-filename", options.output_dir, "Also write each rank's output to DIR/rank.N/")
      ->type_name("DIR");
  app.add_option("--report", options.report_file, "Write the job's root-cause report to FILE as JSON (on success too)")
      ->type_name("FILE");
  app.add_flag("--prefix-timestamp", options.prefix_timestamp, "Prefix each output line with the time");
  app.add_flag("--verbose", options.verbose, "Say what hvdrun does");
  app.add_option("--log-level", options.log_level, "trace|debug|info|warning|error|off (warning)")->type_name("LEVEL");
  app.add_option("-x", raw.exports, "Export NAME (its value here) or NAME=VALUE to the workers; repeatable")
      ->allow_extra_args(false)
      ->type_name("NAME[=VALUE]");
  app.add_option("--timeline-filename", raw.timeline_filename,
                 "Every rank writes a Chrome trace: rank 0 to FILE, rank r to FILE's stem.r.ext (HOROVOD_TIMELINE)")
      ->type_name("FILE");
  app.add_flag("--timeline-mark-cycles", raw.timeline_mark_cycles, "Mark each engine cycle in the timeline");
  app.add_flag("--autotune", raw.autotune, "Tune fusion threshold and cycle time during the first steps");
  app.add_option("--autotune-log-file", raw.autotune_log_file, "CSV of every autotune sample (rank 0)")
      ->type_name("FILE");
  app.add_option("-p,--ssh-port", raw.ssh_port, "SSH port for every remote host")->type_name("PORT");
  app.add_option("-i,--ssh-identity-file", options.ssh_identity_file, "SSH private key")->type_name("FILE");
  app.add_option("--ssh-config", options.ssh_config, "SSH config file (default ~/.ssh/config)")->type_name("FILE");
  app.add_flag("--ssh-accept-new", options.ssh_accept_new, "Record unknown host keys (never changed ones)");
  app.add_option("--agent-path", options.agent_path, "Absolute path of hvd-agent on remote hosts")->type_name("PATH");
  app.add_option("--network-interface", options.network_interface, "Interface the hosts reach each other on")
      ->type_name("IFACE");
  app.add_option("--coordinator-addr", options.coordinator_addr, "Address agents connect back to")->type_name("ADDR");
  app.add_flag("--check-hosts", options.check_hosts, "Check SSH, agents and links on every host, run nothing");
  app.add_flag("--mpi", options.mpi, "Launch the workers with mpirun");
  app.add_option("--mpi-args", options.mpi_args, "Extra arguments for mpirun, as one string")->type_name("ARGS");
  app.add_flag("--check-build", options.check_build, "Print what this build supports and exit");
  app.add_option("--launcher", raw.launcher, "How agents start: ssh, or slurm (srun; default in an allocation)")
      ->type_name("ssh|slurm");
  app.add_option("--max-restarts", raw.max_restarts, "Restart the whole job on failure up to N times (0)")
      ->type_name("N");
  define_elastic_flags(app, raw.elastic);
  app.add_flag("--horovod-compat", options.horovod_compat,
               "Let unmodified Horovod scripts import horovod.torch (hvd's, via the workers' PYTHONPATH)");
}

std::string one_line(std::string text) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

}  // namespace

std::variant<LaunchOptions, ExitNow> parse_command_line(int argc, const char* const* argv) {
  return parse_command_line(argc, argv, environ);
}

std::variant<LaunchOptions, ExitNow> parse_command_line(int argc, const char* const* argv,
                                                        const char* const* environ_) {
  LaunchOptions options;
  RawFlags raw;
  CLI::App app{"hvdrun: run a distributed training job, one process per rank", "hvdrun"};
  define_flags(app, options, raw);

  // CLI11 takes single-dash names of one letter only; mpirun's and Horovod's -np is spelled --num-proc for it.
  std::vector<std::string> args;
  for (int i = argc - 1; i >= 1; --i) {
    std::string arg = argv[i];
    if (arg == "-np" || arg.starts_with("-np=")) arg = "--num-proc" + arg.substr(3);
    args.push_back(std::move(arg));
  }
  try {
    app.parse(args);
  } catch (const CLI::CallForHelp&) {
    return ExitNow{0, app.help()};
  } catch (const CLI::ParseError& e) {
    throw UsageError(one_line(e.what()) + "; see hvdrun --help");
  }
  if (raw.version) return ExitNow{0, kVersionText};
  options.command = take_command(app.remaining(), argc, argv);
  resolve(options, raw, app, environ_);
  return options;
}

}  // namespace hvd::launcher
