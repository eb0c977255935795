// A view of another store under a key prefix ("job7/" + key), so that independent users of one store (the
// communicator, a second communicator, tests) never see each other's keys. Does not own the inner store.
#pragma once

#include "store/store.h"

namespace hvd::detail {

class PrefixStore : public Store {
 public:
  PrefixStore(std::string prefix, Store& inner) : prefix_(std::move(prefix)), inner_(inner) {}
  void set(const std::string& key, const std::string& value) override { inner_.set(prefix_ + key, value); }
  std::string get(const std::string& key, std::chrono::milliseconds timeout) override {
    return inner_.get(prefix_ + key, timeout);
  }
  std::int64_t add(const std::string& key, std::int64_t delta) override { return inner_.add(prefix_ + key, delta); }
  std::string describe() const override { return inner_.describe() + " (prefix '" + prefix_ + "')"; }

 private:
  std::string prefix_;
  Store& inner_;
};

}  // namespace hvd::detail
