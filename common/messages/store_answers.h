// What hvdrun's store answers a store client (store_requests.h has the requests): each request gets one frame,
// its answer ("ok": true) or a refusal ("ok": false). An answer does not say which request it answers: the client
// knows what it asked. Each answer a struct with one encoder and one decoder.
//   set        -> {"ok":true}
//   get        -> {"ok":true,"value":v}
//   add        -> {"ok":true,"value":<new integer value>}
//   rendezvous -> {"ok":true,"generation":G2,"rank":r,"size":n,"local_rank":l,"local_size":m,"cross_rank":c,
//                  "cross_size":k,"hostname":"h1","events":E}
//   any        -> {"ok":false,"error":"<why: timed out waiting for key 'k', no place for h1/0 (naming the host and
//                  the flag), an unknown op>"}
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "common/messages/message_error.h"
#include "common/messages/message_type.h"

namespace hvd::messages {

struct SetAnswer {
  static constexpr MessageType kType = MessageType::kSetAnswer;

  nlohmann::json encode() const;
  static SetAnswer decode(const nlohmann::json& frame);
  bool operator==(const SetAnswer&) const = default;
};

struct GetAnswer {
  static constexpr MessageType kType = MessageType::kGetAnswer;
  std::string value;

  nlohmann::json encode() const;
  static GetAnswer decode(const nlohmann::json& frame);
  bool operator==(const GetAnswer&) const = default;
};

struct AddAnswer {
  static constexpr MessageType kType = MessageType::kAddAnswer;
  std::int64_t value = 0;  // the key's value after the add

  nlohmann::json encode() const;
  static AddAnswer decode(const nlohmann::json& frame);
  bool operator==(const AddAnswer&) const = default;
};

// This worker's place in generation `generation`, and how many elastic events hvdrun had announced when it formed
// it (the worker watches the store's "elastic/event/<n>" keys from events + 1; common/protocol.h).
struct RendezvousAnswer {
  static constexpr MessageType kType = MessageType::kRendezvousAnswer;
  std::int64_t generation = 0;
  int rank = 0, size = 1, local_rank = 0, local_size = 1, cross_rank = 0, cross_size = 1;
  std::string hostname;
  std::int64_t events = 0;

  nlohmann::json encode() const;
  static RendezvousAnswer decode(const nlohmann::json& frame);
  bool operator==(const RendezvousAnswer&) const = default;
};

struct StoreRefusal {
  static constexpr MessageType kType = MessageType::kStoreRefusal;
  std::string error;  // why, for the client's error message

  nlohmann::json encode() const;
  static StoreRefusal decode(const nlohmann::json& frame);
  bool operator==(const StoreRefusal&) const = default;
};

// Whether an answer frame is a refusal (its "ok" is false); throws MessageError when "ok" is missing or not a
// boolean.
bool is_refusal(const nlohmann::json& frame);

}  // namespace hvd::messages
