// What a store client (a worker's store/tcp_store.h) asks hvdrun's store (store/store_server.h), one request at a
// time, each answered once (store_answers.h); each request a struct with one encoder and one decoder. Values are
// strings (UTF-8 text; the client hex-encodes binary values).
//   {"op":"set","key":k,"value":v}            -> {"ok":true}
//   {"op":"get","key":k,"timeout_ms":t}       -> {"ok":true,"value":v}  (waits until set, or)
//                                             -> {"ok":false,"error":"timed out waiting for key 'k'"}
//   {"op":"add","key":k,"delta":n}            -> {"ok":true,"value":<new integer value>}
//   {"op":"rendezvous","worker":"h1/0","after":G}
//      elastic jobs only (HOROVOD_ELASTIC=1): waits until hvdrun forms a generation newer than G (-1 the first
//      time) that holds this worker, then answers its place (RendezvousAnswer), or refuses when the job has no
//      place for it (host removed or blacklisted, job ending, below --min-np after --elastic-timeout).
//      A generation forms once every live worker waits in rendezvous (hvdrun announces a "reset" event to bring
//      them; a worker asking after the newest generation also triggers one). Ranks: hosts in the order they
//      joined the job (so rank 0 is a survivor holding committed state), workers by slot; local and cross ranks
//      as in the static plan.
#pragma once

#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "common/messages/message_error.h"
#include "common/messages/message_type.h"

namespace hvd::messages {

struct SetRequest {
  static constexpr MessageType kType = MessageType::kSetRequest;
  std::string key, value;

  nlohmann::json encode() const;
  static SetRequest decode(const nlohmann::json& frame);
  bool operator==(const SetRequest&) const = default;
};

struct GetRequest {
  static constexpr MessageType kType = MessageType::kGetRequest;
  static constexpr std::chrono::milliseconds kDefaultTimeout{30000};  // when the request gives none
  std::string key;
  std::chrono::milliseconds timeout = kDefaultTimeout;  // "timeout_ms": how long the server waits for the key

  nlohmann::json encode() const;
  static GetRequest decode(const nlohmann::json& frame);
  bool operator==(const GetRequest&) const = default;
};

struct AddRequest {
  static constexpr MessageType kType = MessageType::kAddRequest;
  std::string key;
  std::int64_t delta = 0;

  nlohmann::json encode() const;
  static AddRequest decode(const nlohmann::json& frame);
  bool operator==(const AddRequest&) const = default;
};

struct RendezvousRequest {
  static constexpr MessageType kType = MessageType::kRendezvousRequest;
  std::string worker;      // its stable name, "host/slot"
  std::int64_t after = -1;  // the generation it had; -1 the first time

  nlohmann::json encode() const;
  static RendezvousRequest decode(const nlohmann::json& frame);
  bool operator==(const RendezvousRequest&) const = default;
};

}  // namespace hvd::messages
