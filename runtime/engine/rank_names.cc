#include "runtime/engine/rank_names.h"

#include <algorithm>

namespace hvd::detail {

int RankNames::job_rank(int r) const {
  return r >= 0 && static_cast<std::size_t>(r) < job_ranks.size() ? job_ranks[static_cast<std::size_t>(r)] : r;
}

std::string RankNames::host(int r) const {
  return r >= 0 && static_cast<std::size_t>(r) < hosts.size() ? hosts[static_cast<std::size_t>(r)] : "?";
}

std::string describe_ranks(const std::vector<int>& ranks, const RankNames& names) {
  std::string out = ranks.size() == 1 ? "rank " : "ranks ";
  bool one_host = std::all_of(ranks.begin(), ranks.end(),
                              [&](int r) { return names.host(r) == names.host(ranks.front()); });
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(names.job_rank(ranks[i]));
    if (!one_host) out += " (" + names.host(ranks[i]) + ")";
  }
  if (one_host && !ranks.empty()) out += " (" + names.host(ranks.front()) + ")";
  return out;
}

}  // namespace hvd::detail
