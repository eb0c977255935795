#include "common/messages/store_answers.h"

#include "common/messages/frame_fields.h"

namespace hvd::messages {

nlohmann::json SetAnswer::encode() const { return {{"ok", true}}; }

SetAnswer SetAnswer::decode(const nlohmann::json& frame) {
  fields::expect_ok(frame, kType, true);
  return {};
}

nlohmann::json GetAnswer::encode() const { return {{"ok", true}, {"value", value}}; }

GetAnswer GetAnswer::decode(const nlohmann::json& frame) {
  fields::expect_ok(frame, kType, true);
  return {.value = fields::required<std::string>(frame, name_of(kType), "value")};
}

nlohmann::json AddAnswer::encode() const { return {{"ok", true}, {"value", value}}; }

AddAnswer AddAnswer::decode(const nlohmann::json& frame) {
  fields::expect_ok(frame, kType, true);
  return {.value = fields::required<std::int64_t>(frame, name_of(kType), "value")};
}

nlohmann::json RendezvousAnswer::encode() const {
  return {{"ok", true},
          {"generation", generation},
          {"rank", rank},
          {"size", size},
          {"local_rank", local_rank},
          {"local_size", local_size},
          {"cross_rank", cross_rank},
          {"cross_size", cross_size},
          {"hostname", hostname},
          {"events", events}};
}

RendezvousAnswer RendezvousAnswer::decode(const nlohmann::json& frame) {
  fields::expect_ok(frame, kType, true);
  const auto name = name_of(kType);
  RendezvousAnswer a;
  a.generation = fields::required<std::int64_t>(frame, name, "generation");
  a.rank = fields::required<int>(frame, name, "rank");
  a.size = fields::required<int>(frame, name, "size");
  a.local_rank = fields::required<int>(frame, name, "local_rank");
  a.local_size = fields::required<int>(frame, name, "local_size");
  a.cross_rank = fields::required<int>(frame, name, "cross_rank");
  a.cross_size = fields::required<int>(frame, name, "cross_size");
  a.hostname = fields::required<std::string>(frame, name, "hostname");
  a.events = fields::required<std::int64_t>(frame, name, "events");
  return a;
}

nlohmann::json StoreRefusal::encode() const { return {{"ok", false}, {"error", error}}; }

StoreRefusal StoreRefusal::decode(const nlohmann::json& frame) {
  fields::expect_ok(frame, kType, false);
  return {.error = fields::required<std::string>(frame, name_of(kType), "error")};
}

bool is_refusal(const nlohmann::json& frame) {
  if (!frame.is_object()) throw MessageError("store answer", "", "the frame is not a JSON object");
  return !fields::required<bool>(frame, "store answer", "ok");
}

}  // namespace hvd::messages
