// The first frame of every connection to hvdrun's coordination server, after the handshake (common/handshake.h):
// it says who connects. An agent's opens its control link; a store client's (a worker's) opens a store link.
//   {"type":"hello","role":"agent","host":"h1","pid":123,"machine":"boot=... machine=... netns=..."}
//      machine: agent/machine_identity.h; hvdrun refuses a job whose -H names one machine twice
//   {"type":"hello","role":"store","rank":3}
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "common/messages/message_error.h"
#include "common/messages/message_type.h"

namespace hvd::messages {

struct AgentHello {
  static constexpr MessageType kType = MessageType::kAgentHello;
  std::string host;     // the host as hvdrun names it (the agent's --host)
  int pid = 0;          // optional on the wire
  std::string machine;  // optional on the wire: "" when not said

  nlohmann::json encode() const;
  static AgentHello decode(const nlohmann::json& frame);
  bool operator==(const AgentHello&) const = default;
};

struct StoreHello {
  static constexpr MessageType kType = MessageType::kStoreHello;
  int rank = -1;  // the worker's rank; -1 when it has none yet (an elastic worker); optional on the wire

  nlohmann::json encode() const;
  static StoreHello decode(const nlohmann::json& frame);
  bool operator==(const StoreHello&) const = default;
};

}  // namespace hvd::messages
