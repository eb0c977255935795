// How the engine's messages name its ranks (mismatches, stalls, duplicate names, joined ranks): by their hosts,
// and in a process set by their ranks in the job, what hvd.rank() says there, not their places in the set.
#pragma once

#include <string>
#include <vector>

namespace hvd::detail {

struct RankNames {
  RankNames(std::vector<std::string> hosts_by_rank, std::vector<int> job_ranks_by_rank = {})  // NOLINT: implicit
      : hosts(std::move(hosts_by_rank)), job_ranks(std::move(job_ranks_by_rank)) {}
  std::vector<std::string> hosts;  // hosts[r]
  std::vector<int> job_ranks;      // job_ranks[r]; empty: the engine's ranks are the job's
  int job_rank(int r) const;
  std::string host(int r) const;  // "?" when unknown
};

// "rank 1 (h2)", "ranks 0, 2 (h1)", "ranks 0 (h1), 3 (h2)".
std::string describe_ranks(const std::vector<int>& ranks, const RankNames& names);

}  // namespace hvd::detail
