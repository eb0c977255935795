#include "runtime/engine/response_cache.h"

#include <algorithm>

namespace hvd::detail {

ResponseCache::ResponseCache(std::size_t capacity) : capacity_(capacity) {}

bool ResponseCache::cacheable(const Request& q) {
  // Allgather and alltoall outputs depend on every rank's first dimension or splits, which may change between
  // steps without this rank knowing: they always negotiate.
  return (q.type == OpType::kAllreduce || q.type == OpType::kBroadcast || q.type == OpType::kReducescatter) &&
         q.group.empty();
}

ResponseCache::Lookup ResponseCache::lookup(const Request& q) const {
  auto it = by_name_.find(q.name);
  if (it == by_name_.end()) return {};
  const Response& r = *slots_[it->second].response;
  bool same = r.type == q.type && r.device == q.device && r.dtype == q.dtype && r.shapes[0] == q.shape &&
              r.reduce_op == q.reduce_op && r.prescale == q.prescale && r.postscale == q.postscale && r.root == q.root;
  return {same ? Kind::kHit : Kind::kStale, it->second};
}

std::optional<std::size_t> ResponseCache::put(const Response& single) {
  if (capacity_ == 0) return std::nullopt;
  ++version_;
  const std::string& name = single.names.front();
  if (auto it = by_name_.find(name); it != by_name_.end()) {
    slots_[it->second].response = single;
    touch(it->second);
    return std::nullopt;
  }
  std::size_t slot;
  std::optional<std::size_t> evicted;
  if (by_name_.size() >= capacity_) {
    evicted = lru_.back();
    erase(*evicted);
  }
  if (!free_.empty()) {
    // Lowest free slot first keeps the bit vector short.
    auto low = std::min_element(free_.begin(), free_.end());
    slot = *low;
    free_.erase(low);
  } else {
    slot = slots_.size();
    slots_.emplace_back();
  }
  slots_[slot].response = single;
  lru_.push_front(slot);
  slots_[slot].lru = lru_.begin();
  by_name_[name] = slot;
  return evicted;
}

void ResponseCache::touch(std::size_t slot) {
  if (!has(slot)) return;
  lru_.splice(lru_.begin(), lru_, slots_[slot].lru);
}

void ResponseCache::erase(std::size_t slot) {
  if (!has(slot)) return;
  ++version_;
  by_name_.erase(slots_[slot].response->names.front());
  lru_.erase(slots_[slot].lru);
  slots_[slot].response.reset();
  free_.push_back(slot);
}

}  // namespace hvd::detail
