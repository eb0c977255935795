// The elastic event watcher (common/protocol.h, "Elastic events"): a thread with its own store connection that
// waits on "elastic/event/<first>", "elastic/event/<first+1>", ... and hands each event to its callback as soon as
// hvdrun announces it. Owned by the runtime; its destructor interrupts the connection and joins the thread, so it
// never outlives what the callbacks touch. Waiting is a blocking store get: no polling.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "store/tcp_store.h"

namespace hvd::detail {

class EventWatcher {
 public:
  // on_event(n, value): value is "reset", "hosts_updated" or whatever a newer hvdrun sends (logged, ignored by the
  // runtime). Runs on the watcher's thread; must not throw.
  using OnEvent = std::function<void(std::int64_t n, const std::string& value)>;
  EventWatcher(std::unique_ptr<TcpStore> store, std::int64_t first, OnEvent on_event);
  ~EventWatcher();
  EventWatcher(const EventWatcher&) = delete;
  EventWatcher& operator=(const EventWatcher&) = delete;

 private:
  void watch(std::stop_token stop);

  std::unique_ptr<TcpStore> store_;
  std::int64_t next_;
  OnEvent on_event_;
  std::jthread thread_;  // last: starts once the members it uses exist
};

}  // namespace hvd::detail
