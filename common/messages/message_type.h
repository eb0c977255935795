// Every message of the control plane (common/protocol.h's links), as one enumerable list: its type, the name
// errors and logs give it, and who receives it. A test that must cover every message (the round trips of
// tests/unit/common/messages_test.cc, a frame-attack test) iterates message_types(), so a new message without a
// case fails it. Each type's struct, with its one encoder and one decoder, is in this folder.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace hvd::messages {

enum class MessageType {
  // The first frame of every connection to hvdrun's coordination server (hello.h).
  kAgentHello,
  kStoreHello,
  // hvdrun -> agent (agent_commands.h); kHeartbeat goes both ways.
  kLaunch,
  kTerminate,
  kKill,
  kCredit,
  kHeartbeat,
  // agent -> hvdrun (agent_reports.h).
  kStarted,
  kSpawnFailed,
  kOutput,
  kExit,
  kBye,
  // Store client -> hvdrun (store_requests.h), one at a time, each answered once.
  kSetRequest,
  kGetRequest,
  kAddRequest,
  kRendezvousRequest,
  // hvdrun -> store client (store_answers.h): the answer to the request, or a refusal of any request.
  kSetAnswer,
  kGetAnswer,
  kAddAnswer,
  kRendezvousAnswer,
  kStoreRefusal,
};

// Who may be sent a message (bits of MessageTypeInfo::receivers).
enum Receiver : unsigned {
  kToLauncher = 1,     // hvdrun's coordination server: a hello, an agent's report, a store request
  kToAgent = 2,        // hvd-agent, on its link to hvdrun
  kToStoreClient = 4,  // a worker's store client (store/tcp_store.h)
};

struct MessageTypeInfo {
  MessageType type;
  std::string_view name;  // "exit", "agent hello", "get request", "get answer": unique
  unsigned receivers;     // Receiver bits
};

// All of them, in MessageType's order.
std::span<const MessageTypeInfo> message_types();
std::string_view name_of(MessageType type);

// The type of a frame that says its own: a hello and an agent-link frame by "type" (a hello by its "role" too), a
// store request by "op". Store answers say none (their client knows what it asked): nullopt, as for a type or op
// that no message has.
std::optional<MessageType> message_type_of(const nlohmann::json& frame);

// What a frame claims to be, for a log line about one that no message matches: its "type" (and a hello's "role"),
// else its "op", as JSON text: "\"launch-all\"", "\"hello\" role \"spy\"", "op \"del\"", or "none".
std::string claimed_type(const nlohmann::json& frame);

}  // namespace hvd::messages
