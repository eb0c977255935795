#include "common/messages/message_type.h"

#include <array>
#include <utility>

namespace hvd::messages {
namespace {

constexpr std::array kTypes{
    MessageTypeInfo{MessageType::kAgentHello, "agent hello", kToLauncher},
    MessageTypeInfo{MessageType::kStoreHello, "store hello", kToLauncher},
    MessageTypeInfo{MessageType::kLaunch, "launch", kToAgent},
    MessageTypeInfo{MessageType::kTerminate, "terminate", kToAgent},
    MessageTypeInfo{MessageType::kKill, "kill", kToAgent},
    MessageTypeInfo{MessageType::kCredit, "credit", kToAgent},
    MessageTypeInfo{MessageType::kHeartbeat, "heartbeat", kToAgent | kToLauncher},
    MessageTypeInfo{MessageType::kStarted, "started", kToLauncher},
    MessageTypeInfo{MessageType::kSpawnFailed, "spawn_failed", kToLauncher},
    MessageTypeInfo{MessageType::kOutput, "output", kToLauncher},
    MessageTypeInfo{MessageType::kExit, "exit", kToLauncher},
    MessageTypeInfo{MessageType::kBye, "bye", kToLauncher},
    MessageTypeInfo{MessageType::kSetRequest, "set request", kToLauncher},
    MessageTypeInfo{MessageType::kGetRequest, "get request", kToLauncher},
    MessageTypeInfo{MessageType::kAddRequest, "add request", kToLauncher},
    MessageTypeInfo{MessageType::kRendezvousRequest, "rendezvous request", kToLauncher},
    MessageTypeInfo{MessageType::kSetAnswer, "set answer", kToStoreClient},
    MessageTypeInfo{MessageType::kGetAnswer, "get answer", kToStoreClient},
    MessageTypeInfo{MessageType::kAddAnswer, "add answer", kToStoreClient},
    MessageTypeInfo{MessageType::kRendezvousAnswer, "rendezvous answer", kToStoreClient},
    MessageTypeInfo{MessageType::kStoreRefusal, "store refusal", kToStoreClient},
};

// The agent link's "type" values; a hello is told apart by its role.
constexpr std::array<std::pair<std::string_view, MessageType>, 10> kAgentLinkTypes{{
    {"launch", MessageType::kLaunch},
    {"terminate", MessageType::kTerminate},
    {"kill", MessageType::kKill},
    {"credit", MessageType::kCredit},
    {"heartbeat", MessageType::kHeartbeat},
    {"started", MessageType::kStarted},
    {"spawn_failed", MessageType::kSpawnFailed},
    {"output", MessageType::kOutput},
    {"exit", MessageType::kExit},
    {"bye", MessageType::kBye},
}};

constexpr std::array<std::pair<std::string_view, MessageType>, 4> kStoreOps{{
    {"set", MessageType::kSetRequest},
    {"get", MessageType::kGetRequest},
    {"add", MessageType::kAddRequest},
    {"rendezvous", MessageType::kRendezvousRequest},
}};

std::optional<std::string_view> string_field(const nlohmann::json& frame, const char* field) {
  if (!frame.is_object()) return std::nullopt;
  auto it = frame.find(field);
  if (it == frame.end() || !it->is_string()) return std::nullopt;
  return it->get_ref<const std::string&>();
}

template <std::size_t N>
std::optional<MessageType> look_up(const std::array<std::pair<std::string_view, MessageType>, N>& table,
                                   std::string_view wire) {
  for (const auto& [name, type] : table) {
    if (name == wire) return type;
  }
  return std::nullopt;
}

}  // namespace

std::span<const MessageTypeInfo> message_types() { return kTypes; }

std::string_view name_of(MessageType type) {
  for (const auto& info : kTypes) {
    if (info.type == type) return info.name;
  }
  return "unknown";
}

std::optional<MessageType> message_type_of(const nlohmann::json& frame) {
  if (auto type = string_field(frame, "type")) {
    if (*type != "hello") return look_up(kAgentLinkTypes, *type);
    const auto role = string_field(frame, "role");
    if (role == "agent") return MessageType::kAgentHello;
    if (role == "store") return MessageType::kStoreHello;
    return std::nullopt;
  }
  if (auto op = string_field(frame, "op")) return look_up(kStoreOps, *op);
  return std::nullopt;
}

std::string claimed_type(const nlohmann::json& frame) {
  auto text = [](const nlohmann::json& value) {
    std::string shown = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    return shown.size() > 40 ? shown.substr(0, 37) + "..." : shown;
  };
  if (!frame.is_object()) return "none";
  if (auto type = frame.find("type"); type != frame.end()) {
    auto role = frame.find("role");
    return text(*type) + (*type == "hello" && role != frame.end() ? " role " + text(*role) : "");
  }
  if (auto op = frame.find("op"); op != frame.end()) return "op " + text(*op);
  return "none";
}

}  // namespace hvd::messages
