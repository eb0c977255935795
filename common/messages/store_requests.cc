#include "common/messages/store_requests.h"

#include "common/messages/frame_fields.h"

namespace hvd::messages {

nlohmann::json SetRequest::encode() const { return {{"op", "set"}, {"key", key}, {"value", value}}; }

SetRequest SetRequest::decode(const nlohmann::json& frame) {
  fields::expect_type(frame, kType);
  const auto name = name_of(kType);
  return {.key = fields::required<std::string>(frame, name, "key"),
          .value = fields::required<std::string>(frame, name, "value")};
}

nlohmann::json GetRequest::encode() const {
  return {{"op", "get"}, {"key", key}, {"timeout_ms", timeout.count()}};
}

GetRequest GetRequest::decode(const nlohmann::json& frame) {
  fields::expect_type(frame, kType);
  const auto name = name_of(kType);
  return {.key = fields::required<std::string>(frame, name, "key"),
          .timeout = std::chrono::milliseconds(
              fields::or_default<std::int64_t>(frame, name, "timeout_ms", kDefaultTimeout.count()))};
}

nlohmann::json AddRequest::encode() const { return {{"op", "add"}, {"key", key}, {"delta", delta}}; }

AddRequest AddRequest::decode(const nlohmann::json& frame) {
  fields::expect_type(frame, kType);
  const auto name = name_of(kType);
  return {.key = fields::required<std::string>(frame, name, "key"),
          .delta = fields::required<std::int64_t>(frame, name, "delta")};
}

nlohmann::json RendezvousRequest::encode() const {
  return {{"op", "rendezvous"}, {"worker", worker}, {"after", after}};
}

RendezvousRequest RendezvousRequest::decode(const nlohmann::json& frame) {
  fields::expect_type(frame, kType);
  const auto name = name_of(kType);
  return {.worker = fields::required<std::string>(frame, name, "worker"),
          .after = fields::or_default<std::int64_t>(frame, name, "after", -1)};
}

}  // namespace hvd::messages
