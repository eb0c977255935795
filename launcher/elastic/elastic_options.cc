#include "launcher/elastic/elastic_options.h"

#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstring>

#include "common/error.h"
#include "launcher/flags/flag_values.h"

namespace hvd::launcher {
namespace {

constexpr int kMaxNp = 1 << 20;

void check_script(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    throw UsageError("--host-discovery-script '" + path + "': " + std::strerror(errno) + "; check the path");
  }
  if (!S_ISREG(st.st_mode) || ::access(path.c_str(), X_OK) != 0) {
    throw UsageError("--host-discovery-script '" + path + "' is not an executable file; chmod +x it");
  }
}

}  // namespace

void define_elastic_flags(CLI::App& app, ElasticFlags& flags) {
  app.add_option("--min-np", flags.min_np, "Elastic: fewest workers to train with (default -np)")->type_name("N");
  app.add_option("--max-np", flags.max_np, "Elastic: most workers to start (default: every slot)")->type_name("N");
  app.add_option("--host-discovery-script", flags.discovery_script,
                 "Elastic: executable printing the usable hosts, one host:slots per line")
      ->type_name("FILE");
  app.add_option("--elastic-timeout", flags.timeout, "Elastic: seconds to wait below --min-np before failing (600)")
      ->type_name("SECONDS");
  app.add_option("--discovery-interval", flags.interval, "Elastic: seconds between discovery runs (1)")
      ->type_name("SECONDS");
  app.add_option("--blacklist-cooldown-range", flags.cooldown,
                 "Elastic: a failed slot or host comes back after MIN..MAX s, doubling per failure (default: never)")
      ->expected(2)
      ->allow_extra_args(false)
      ->type_name("MIN MAX");
  app.add_option("--reset-limit", flags.reset_limit, "Elastic: fail the job after N resets (default: no limit)")
      ->type_name("N");
}

bool elastic_requested(const CLI::App& app) {
  return app.count("--min-np") > 0 || app.count("--max-np") > 0 || app.count("--host-discovery-script") > 0;
}

namespace {

void refuse_elastic_only_flags(const CLI::App& app) {
  for (const std::string flag :
       {"--elastic-timeout", "--discovery-interval", "--blacklist-cooldown-range", "--reset-limit"}) {
    if (app.count(flag) > 0) {
      throw UsageError(flag + " applies to elastic jobs only; add --min-np (or --host-discovery-script), or drop " +
                       flag);
    }
  }
}

void refuse_conflicts(const ElasticContext& context) {
  if (context.mpi) {
    throw UsageError(
        "elastic flags (--min-np, --max-np, --host-discovery-script) do not apply with --mpi: mpirun "
        "cannot add or replace ranks in a running job; drop --mpi");
  }
  if (context.max_restarts) {
    throw UsageError(
        "--max-restarts is for jobs that are not elastic (an elastic job recovers by itself); drop "
        "--max-restarts or the elastic flags");
  }
  if (context.slurm) throw UsageError("elastic jobs start their agents over SSH, not srun; add --launcher ssh");
}

std::string discovery_script(const ElasticFlags& flags, const CLI::App& app) {
  if (app.count("--host-discovery-script") == 0) return "";
  if (app.count("--hosts") > 0 || app.count("--hostfile") > 0) {
    throw UsageError("--host-discovery-script and -H/--hostfile both given; the script names the hosts, drop -H");
  }
  if (flags.discovery_script.empty()) throw UsageError("--host-discovery-script is empty; give the script's path");
  check_script(flags.discovery_script);
  return flags.discovery_script;
}

// --min-np and --max-np, and -np between them.
void resolve_np_range(ElasticOptions& e, const ElasticFlags& flags, const CLI::App& app, bool np_given, int& np) {
  if (app.count("--max-np") > 0) e.max_np = flag_int("--max-np", flags.max_np, 1, kMaxNp, "--max-np 8");
  if (app.count("--min-np") > 0) {
    e.min_np = flag_int("--min-np", flags.min_np, 1, kMaxNp, "--min-np 2");
  } else {
    e.min_np = np_given ? np : 1;
  }
  if (e.max_np > 0 && e.min_np > e.max_np) {
    throw UsageError("--min-np " + std::to_string(e.min_np) + " is above --max-np " + std::to_string(e.max_np) +
                     "; give --min-np <= --max-np");
  }
  if (!np_given) np = e.discovery_script.empty() ? np : e.min_np;
  if (np < e.min_np || (e.max_np > 0 && np > e.max_np)) {
    throw UsageError("-np " + std::to_string(np) + " is outside --min-np " + std::to_string(e.min_np) +
                     (e.max_np > 0 ? " .. --max-np " + std::to_string(e.max_np) : "") + "; give -np between them");
  }
}

// --elastic-timeout, --discovery-interval, --blacklist-cooldown-range and --reset-limit.
void resolve_timing(ElasticOptions& e, const ElasticFlags& flags, const CLI::App& app) {
  if (app.count("--elastic-timeout") > 0) {
    e.timeout_s = flag_seconds("--elastic-timeout", flags.timeout, false, "give e.g. --elastic-timeout 600");
  }
  if (app.count("--discovery-interval") > 0) {
    e.discovery_interval_s =
        flag_seconds("--discovery-interval", flags.interval, false, "give e.g. --discovery-interval 1");
  }
  if (app.count("--blacklist-cooldown-range") > 0) {
    const double min = flag_seconds("--blacklist-cooldown-range MIN", flags.cooldown.at(0), false,
                                    "give e.g. --blacklist-cooldown-range 10 100");
    const double max = flag_seconds("--blacklist-cooldown-range MAX", flags.cooldown.at(1), false,
                                    "give e.g. --blacklist-cooldown-range 10 100");
    if (min > max) {
      throw UsageError("--blacklist-cooldown-range " + flags.cooldown[0] + " " + flags.cooldown[1] +
                       ": MIN is above MAX; give MIN <= MAX");
    }
    e.cooldown = elastic::CooldownRange{min, max};
  }
  if (app.count("--reset-limit") > 0) {
    e.reset_limit = flag_int("--reset-limit", flags.reset_limit, 0, kMaxNp, "--reset-limit 10");
  }
}

}  // namespace

std::optional<ElasticOptions> resolve_elastic(const ElasticFlags& flags, const CLI::App& app,
                                              const ElasticContext& context, int& np) {
  if (!elastic_requested(app)) {
    refuse_elastic_only_flags(app);
    return std::nullopt;
  }
  refuse_conflicts(context);
  ElasticOptions e;
  e.discovery_script = discovery_script(flags, app);
  resolve_np_range(e, flags, app, context.np_given, np);
  resolve_timing(e, flags, app);
  return e;
}

}  // namespace hvd::launcher
