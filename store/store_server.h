// The server side of the rendezvous store (requests and answers: common/messages/store_requests.h), the one that
// hvdrun's coordination server runs for the job's workers and that the tests and their stub launcher share: a
// key-value map whose `get` waits for the key to be set, bounded by the request's timeout; each request gets
// exactly one answer. It answers requests on connections someone else accepted (and greeted), on that one's
// io_context. The elastic `rendezvous` op goes to the handler set for it; without one it is refused.
#pragma once

#include <asio.hpp>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/framed_connection.h"
#include "common/messages/store_requests.h"

namespace hvd::detail {

class StoreServer {
 public:
  explicit StoreServer(asio::io_context& io) : io_(io) {}
  // Answers one request from `client` (each request gets exactly one reply frame); throws MessageError on a
  // malformed one (the caller drops the client).
  void handle(const std::shared_ptr<FramedConnection>& client, const nlohmann::json& request);
  // Sets a key as a client's `set` would (hvdrun's own keys: the elastic events).
  void set(const std::string& key, const std::string& value);
  // The handler answers the request once, on `client`.
  using RendezvousHandler =
      std::function<void(const std::shared_ptr<FramedConnection>& client, const messages::RendezvousRequest& request)>;
  void set_rendezvous_handler(RendezvousHandler handler) { rendezvous_ = std::move(handler); }
  // Ends every wait unanswered (the server is going away).
  void close();

 private:
  struct Waiter {
    std::weak_ptr<FramedConnection> client;
    std::shared_ptr<asio::steady_timer> timer;
  };
  void get(const std::shared_ptr<FramedConnection>& client, const messages::GetRequest& request);
  void add(const std::shared_ptr<FramedConnection>& client, const messages::AddRequest& request);
  void reply_value(const std::shared_ptr<FramedConnection>& client, const std::string& value);
  void wake_waiters(const std::string& key);
  // Takes the timed-out waiter off its key's list; false when the key's arrival took it off (and answered it).
  bool drop_waiter(const std::string& key, const std::shared_ptr<asio::steady_timer>& timer);

  asio::io_context& io_;
  std::map<std::string, std::string> values_;
  std::map<std::string, std::vector<Waiter>> waiters_;
  RendezvousHandler rendezvous_;
};

}  // namespace hvd::detail
