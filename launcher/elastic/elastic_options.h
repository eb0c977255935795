// hvdrun's elastic flags (--min-np, --max-np, --host-discovery-script, --elastic-timeout, --discovery-interval,
// --blacklist-cooldown-range, --reset-limit): defined and checked here, kept in hvdrun's options. Any of
// the first three makes the job elastic. Bad values throw hvd::UsageError naming the flag and the fix.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "launcher/elastic/blacklist.h"

namespace CLI {
class App;
}

namespace hvd::launcher {

struct ElasticOptions {
  int min_np = 1;
  int max_np = 0;                // 0: no upper bound
  std::string discovery_script;  // empty: the -H/--hostfile list is the fixed set of hosts
  double timeout_s = 600;        // --elastic-timeout: below min_np this long, the job fails
  double discovery_interval_s = 1;
  std::optional<elastic::CooldownRange> cooldown;  // none: a blacklisted host stays out
  int reset_limit = -1;                            // -1: no limit
};

struct ElasticFlags {
  std::string min_np, max_np, discovery_script, timeout, interval, reset_limit;
  std::vector<std::string> cooldown;
};

void define_elastic_flags(CLI::App& app, ElasticFlags& flags);
bool elastic_requested(const CLI::App& app);
// What the elastic flags are checked against: the rest of the command line.
struct ElasticContext {
  bool np_given = false;
  bool mpi = false;           // --mpi
  bool max_restarts = false;  // --max-restarts given
  bool slurm = false;         // the agents start with srun
};

// The elastic options when --min-np, --max-np or --host-discovery-script is given, else std::nullopt (and the other
// elastic flags are refused). When -np was not given and a script names the hosts, `np` becomes --min-np. Call
// after the hosts and -np are resolved.
std::optional<ElasticOptions> resolve_elastic(const ElasticFlags& flags, const CLI::App& app,
                                              const ElasticContext& context, int& np);

}  // namespace hvd::launcher
