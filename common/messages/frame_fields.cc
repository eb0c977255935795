#include "common/messages/frame_fields.h"

namespace hvd::messages {

MessageError::MessageError(std::string_view message, std::string_view field, const std::string& problem)
    : ProtocolError(ErrorKind::kBackend, "malformed '" + std::string(message) + "' message: " + problem),
      message_(message),
      field_(field) {}

namespace fields {

void throw_missing(std::string_view message, std::string_view field) {
  throw MessageError(message, field, "field '" + std::string(field) + "' is missing");
}

void throw_bad(std::string_view message, std::string_view field, std::string_view expected,
               const nlohmann::json& got) {
  std::string shown = got.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (shown.size() > 80) shown = shown.substr(0, 77) + "...";
  throw MessageError(message, field,
                     "field '" + std::string(field) + "' must be " + std::string(expected) + ", not " + shown);
}

void expect_type(const nlohmann::json& frame, MessageType type) {
  const auto name = name_of(type);
  if (!frame.is_object()) throw MessageError(name, "", "the frame is not a JSON object");
  const auto actual = message_type_of(frame);
  if (actual == type) return;
  const char* field = frame.contains("type") ? "type" : frame.contains("op") ? "op" : "type";
  if (actual) {
    throw MessageError(name, field, "the frame is of type '" + std::string(name_of(*actual)) + "'");
  }
  if (!frame.contains(field)) throw_missing(name, field);
  const bool hello = frame.value(field, nlohmann::json()) == "hello";
  throw_bad(name, hello ? "role" : field, hello ? "\"agent\" or \"store\"" : "a known message type",
            hello ? frame.value("role", nlohmann::json()) : frame.at(field));
}

void expect_ok(const nlohmann::json& frame, MessageType type, bool ok) {
  const auto name = name_of(type);
  if (!frame.is_object()) throw MessageError(name, "", "the frame is not a JSON object");
  if (required<bool>(frame, name, "ok") != ok) {
    throw MessageError(name, "ok", ok ? "the store refused the request (\"ok\": false)"
                                      : "the store answered (\"ok\": true), it did not refuse");
  }
}

}  // namespace fields
}  // namespace hvd::messages
