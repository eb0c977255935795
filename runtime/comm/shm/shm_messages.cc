// ShmCommunicator's small-message ops, run every engine cycle: barrier, gather_to_root, broadcast_from_root.
// A message travels in rounds: the first carries its length (8 bytes) and the first chunk-8 bytes, later rounds a
// chunk each; one barrier per round, so a typical negotiation message costs one barrier.
#include <algorithm>
#include <cstring>

#include "runtime/comm/shm/shm_communicator.h"

namespace hvd::detail {

void ShmCommunicator::barrier() {
  if (!group_) return;
  guarded("barrier", [&] { group_->sync("barrier"); });
}

std::vector<std::string> ShmCommunicator::gather_to_root(const std::string& mine) {
  std::vector<std::string> all(static_cast<std::size_t>(topology_.size));
  if (!group_) {
    all[0] = mine;
    return all;
  }
  guarded("gather", [&] {
    auto& g = *group_;
    const int n = g.size(), r = g.rank();
    const std::size_t c = g.chunk();
    // Round 0 carries the length in front of the first piece; further rounds carry c bytes each.
    std::vector<std::size_t> len(static_cast<std::size_t>(n));
    int b = g.next_round();
    std::uint64_t my_len = mine.size();
    std::memcpy(g.slot(r, b), &my_len, 8);
    std::memcpy(g.slot(r, b) + 8, mine.data(), std::min(mine.size(), c - 8));
    g.sync("gather");
    std::size_t most = 0;
    for (int p = 0; p < n; ++p) {
      std::uint64_t v;
      std::memcpy(&v, g.slot(p, b), 8);
      len[p] = v;
      most = std::max(most, len[p]);
      if (r == 0 && p != 0) all[p].assign(reinterpret_cast<const char*>(g.slot(p, b)) + 8, std::min(len[p], c - 8));
    }
    for (std::size_t off = c - 8; off < most; off += c) {
      b = g.next_round();
      if (off < mine.size()) std::memcpy(g.slot(r, b), mine.data() + off, std::min(c, mine.size() - off));
      g.sync("gather");
      for (int p = 1; r == 0 && p < n; ++p) {
        if (off < len[p]) all[p].append(reinterpret_cast<const char*>(g.slot(p, b)), std::min(c, len[p] - off));
      }
    }
  });
  if (topology_.rank == 0) all[0] = mine;
  else all.clear();
  return all;
}

std::string ShmCommunicator::broadcast_from_root(const std::string& from_root) {
  if (!group_) return from_root;
  std::string result;
  guarded("broadcast_from_root", [&] {
    auto& g = *group_;
    const bool root = g.rank() == 0;
    const std::size_t c = g.chunk();
    int b = g.next_round();
    if (root) {
      std::uint64_t len = from_root.size();
      std::memcpy(g.slot(0, b), &len, 8);
      std::memcpy(g.slot(0, b) + 8, from_root.data(), std::min(from_root.size(), c - 8));
    }
    g.sync("broadcast_from_root");
    std::uint64_t len;
    std::memcpy(&len, g.slot(0, b), 8);
    if (!root) result.assign(reinterpret_cast<const char*>(g.slot(0, b)) + 8, std::min<std::size_t>(len, c - 8));
    for (std::size_t off = c - 8; off < len; off += c) {
      b = g.next_round();
      if (root) std::memcpy(g.slot(0, b), from_root.data() + off, std::min<std::size_t>(c, len - off));
      g.sync("broadcast_from_root");
      if (!root) result.append(reinterpret_cast<const char*>(g.slot(0, b)), std::min<std::size_t>(c, len - off));
    }
  });
  return topology_.rank == 0 ? from_root : result;
}

}  // namespace hvd::detail
