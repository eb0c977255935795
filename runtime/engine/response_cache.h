// The response cache: single-tensor responses that were negotiated once, kept in numbered slots so that a
// repeated step needs only one bit-vector allreduce (bit s = "I have the tensor of slot s ready") instead of a
// full gather and broadcast. Every rank holds the same cache: it changes only in lockstep (put after executing a
// negotiated response, touch/erase for slots every rank agreed on), so slot numbers mean the same everywhere.
// Least recently used slots are reused when full. Not thread-safe: the background thread owns it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "runtime/engine/message.h"

namespace hvd::detail {

class ResponseCache {
 public:
  explicit ResponseCache(std::size_t capacity);

  enum class Kind { kMiss, kHit, kStale };  // stale: the name is cached with other parameters
  struct Lookup {
    Kind kind = Kind::kMiss;
    std::size_t slot = 0;
  };
  static bool cacheable(const Request& request);
  Lookup lookup(const Request& request) const;

  // Adds a successful single-tensor response of a cacheable op; returns the slot it evicted to make room, if any
  // (a rank waiting on that slot must negotiate its tensor again).
  std::optional<std::size_t> put(const Response& single);
  const Response& at(std::size_t slot) const { return *slots_.at(slot).response; }
  bool has(std::size_t slot) const { return slot < slots_.size() && slots_[slot].response.has_value(); }
  void touch(std::size_t slot);
  void erase(std::size_t slot);

  std::size_t capacity() const { return capacity_; }
  std::size_t span() const { return slots_.size(); }  // highest slot ever used + 1: the bit vector's length
  std::size_t size() const { return by_name_.size(); }
  // Changes whenever a slot's response is added, replaced or erased (not on touch).
  std::uint64_t version() const { return version_; }

 private:
  struct Slot {
    std::optional<Response> response;
    std::list<std::size_t>::iterator lru;  // position in lru_ while occupied
  };
  std::size_t capacity_;
  std::vector<Slot> slots_;
  std::list<std::size_t> lru_;  // most recently used first
  std::vector<std::size_t> free_;
  std::unordered_map<std::string, std::size_t> by_name_;
  std::uint64_t version_ = 0;
};

}  // namespace hvd::detail
