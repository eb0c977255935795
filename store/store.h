// The rendezvous store: a key-value map shared by all ranks of a job (served by hvdrun over TCP, or in memory
// for single-process runs and tests). Keys are text; values are strings (binary values hex-encoded by callers).
// A timeout names the missing keys and the store's address.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace hvd::detail {

class Store {
 public:
  virtual ~Store() = default;
  virtual void set(const std::string& key, const std::string& value) = 0;
  // Blocks until `key` is set or `timeout` passes (then throws hvd::Error naming the key and the store).
  virtual std::string get(const std::string& key, std::chrono::milliseconds timeout) = 0;
  // Adds `delta` to the integer at `key` (0 when absent) and returns the new value.
  virtual std::int64_t add(const std::string& key, std::int64_t delta) = 0;
  virtual std::string describe() const = 0;  // "store at 10.0.0.1:4000", for error messages

  void wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) {
    for (const auto& k : keys) get(k, timeout);
  }
};

}  // namespace hvd::detail
