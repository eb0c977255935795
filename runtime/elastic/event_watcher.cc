#include "runtime/elastic/event_watcher.h"

#include <spdlog/spdlog.h>

#include <string_view>

#include "hvd/error.h"

namespace hvd::detail {
namespace {
// One get waits this long on the server; a timeout just starts the next wait for the same event.
constexpr std::chrono::minutes kWaitSlice{10};
}  // namespace

EventWatcher::EventWatcher(std::unique_ptr<TcpStore> store, std::int64_t first, OnEvent on_event)
    : store_(std::move(store)), next_(first), on_event_(std::move(on_event)) {
  thread_ = std::jthread([this](std::stop_token stop) { watch(stop); });
}

EventWatcher::~EventWatcher() {
  thread_.request_stop();
  store_->interrupt();  // ends the get the thread waits in
  if (thread_.joinable()) thread_.join();
}

void EventWatcher::watch(std::stop_token stop) {
  while (!stop.stop_requested()) {
    const std::string key = "elastic/event/" + std::to_string(next_);
    std::string value;
    try {
      value = store_->get(key, kWaitSlice);
    } catch (const Error& e) {
      if (stop.stop_requested()) return;
      // The wait timed out: wait again. Any other answer would come back at once, so it ends the watch.
      if (store_->channel_usable() && std::string_view(e.what()).find("timed out") != std::string_view::npos) continue;
      // hvdrun is gone (the job is ending) or the link broke: the data plane or the next rendezvous will say so.
      spdlog::warn("elastic event watcher stopped: {}", e.what());
      return;
    }
    spdlog::info("elastic event {}: {}", next_, value);
    on_event_(next_, value);
    ++next_;
  }
}

}  // namespace hvd::detail
