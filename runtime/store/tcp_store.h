// The client of hvdrun's rendezvous store (common/protocol.h, "Store link"): one authenticated TCP connection,
// one request at a time under a mutex, so any thread may call it. Any I/O or protocol failure throws hvd::Error
// naming the store's address; the connection is then unusable and later calls fail the same way.
#pragma once

#include <memory>
#include <mutex>

#include "common/blocking_channel.h"
#include "runtime/store/store.h"

namespace hvd::detail {

class TcpStore : public Store {
 public:
  // Connects to host:port, authenticates with the raw job secret and says hello as `rank`.
  TcpStore(const std::string& host, int port, const std::string& secret, int rank,
           std::chrono::milliseconds connect_timeout = std::chrono::seconds(30));
  // "host:port" form, as in HVD_STORE_ADDR.
  static std::unique_ptr<TcpStore> connect(const std::string& address, const std::string& secret, int rank,
                                           std::chrono::milliseconds connect_timeout = std::chrono::seconds(30));

  void set(const std::string& key, const std::string& value) override;
  std::string get(const std::string& key, std::chrono::milliseconds timeout) override;
  std::int64_t add(const std::string& key, std::int64_t delta) override;
  std::string describe() const override { return "store at " + address_; }

 private:
  nlohmann::json request(const nlohmann::json& message, std::chrono::milliseconds reply_timeout);

  std::string address_;
  std::mutex mutex_;                         // one request/reply at a time
  std::unique_ptr<BlockingChannel> channel_; // guarded by mutex_; null once broken
  std::string broken_;                       // guarded by mutex_: why the channel was dropped
};

}  // namespace hvd::detail
