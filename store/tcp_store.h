// The client of hvdrun's rendezvous store (common/messages/store_requests.h): one authenticated TCP connection,
// one request at a time under a mutex, so any thread may call it. Any I/O or protocol failure throws hvd::Error
// naming the store's address; the connection is then unusable and later calls fail the same way. interrupt()
// (any thread) ends a request that waits, and every later one, the same way.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>

#include "common/blocking_channel.h"
#include "common/messages/store_answers.h"
#include "store/store.h"

namespace hvd::detail {

// hvdrun's answer to the elastic rendezvous op: this worker's place in a generation.
using RendezvousAnswer = messages::RendezvousAnswer;

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

  // Elastic jobs: waits (up to `timeout`, the server's own bound plus slack) until hvdrun forms a generation
  // newer than `after` (-1: any) that holds `worker` ("host/slot"). A refusal (no place for this worker) throws
  // hvd::Error of kind kMembership with hvdrun's reason; a malformed answer throws naming the field.
  RendezvousAnswer rendezvous(const std::string& worker, std::int64_t after, std::chrono::milliseconds timeout);

  // Shuts the connection down from any thread: a request waiting now fails at once, later ones fail too.
  void interrupt() noexcept;
  // Whether the connection still works (false after a transport failure or interrupt()).
  bool channel_usable();

 private:
  // Sends `message` and returns its answer; throws naming `what` ("get 'key'") on a failure, and the store's
  // reason on a refusal.
  nlohmann::json request(const nlohmann::json& message, const std::string& what,
                         std::chrono::milliseconds reply_timeout);

  std::string address_;
  std::mutex mutex_;                          // one request/reply at a time
  std::unique_ptr<BlockingChannel> channel_;  // guarded by mutex_; null once broken
  std::string broken_;                        // guarded by mutex_: why the channel was dropped
  std::mutex fd_mutex_;                       // orders interrupt() against dropping the channel
  int open_fd_ = -1;                          // guarded by fd_mutex_: the channel's socket while it is open
  std::atomic<bool> interrupted_{false};
};

}  // namespace hvd::detail
