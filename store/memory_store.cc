#include "store/memory_store.h"

#include "hvd/error.h"

namespace hvd::detail {

void MemoryStore::set(const std::string& key, const std::string& value) {
  {
    std::lock_guard lock(mutex_);
    values_[key] = value;
  }
  changed_.notify_all();
}

std::string MemoryStore::get(const std::string& key, std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  if (!changed_.wait_for(lock, timeout, [&] { return values_.count(key) > 0; })) {
    throw Error(ErrorKind::kBackend, "timed out after " + std::to_string(timeout.count()) + " ms waiting for key '" +
                                         key + "' in " + describe());
  }
  return values_.at(key);
}

std::int64_t MemoryStore::add(const std::string& key, std::int64_t delta) {
  std::int64_t value;
  {
    std::lock_guard lock(mutex_);
    auto it = values_.find(key);
    value = (it == values_.end() ? 0 : std::stoll(it->second)) + delta;
    values_[key] = std::to_string(value);
  }
  changed_.notify_all();
  return value;
}

}  // namespace hvd::detail
