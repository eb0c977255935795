// An in-process rendezvous store: a map guarded by a mutex, waits on a condition variable. Used for 1-rank
// jobs and for tests that run ranks as threads. Thread-safe.
#pragma once

#include <condition_variable>
#include <map>
#include <mutex>

#include "store/store.h"

namespace hvd::detail {

class MemoryStore : public Store {
 public:
  void set(const std::string& key, const std::string& value) override;
  std::string get(const std::string& key, std::chrono::milliseconds timeout) override;
  std::int64_t add(const std::string& key, std::int64_t delta) override;
  std::string describe() const override { return "in-memory store"; }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;             // notified on every set/add
  std::map<std::string, std::string> values_;  // guarded by mutex_
};

}  // namespace hvd::detail
