#include "common/messages/hello.h"

#include "common/messages/frame_fields.h"

namespace hvd::messages {

nlohmann::json AgentHello::encode() const {
  return {{"type", "hello"}, {"role", "agent"}, {"host", host}, {"pid", pid}, {"machine", machine}};
}

AgentHello AgentHello::decode(const nlohmann::json& frame) {
  fields::expect_type(frame, kType);
  const auto name = name_of(kType);
  return {.host = fields::required<std::string>(frame, name, "host"),
          .pid = fields::or_default<int>(frame, name, "pid", 0),
          .machine = fields::or_default<std::string>(frame, name, "machine", "")};
}

nlohmann::json StoreHello::encode() const { return {{"type", "hello"}, {"role", "store"}, {"rank", rank}}; }

StoreHello StoreHello::decode(const nlohmann::json& frame) {
  fields::expect_type(frame, kType);
  return {.rank = fields::or_default<int>(frame, name_of(kType), "rank", -1)};
}

}  // namespace hvd::messages
