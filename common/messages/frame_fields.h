// Reading a control-plane frame's fields, for the decoders of common/messages/ only: each read names the message
// and the field, so a malformed frame fails as "malformed 'exit' message: field 'rank' must be an integer, not
// \"x\"". A field read with a fallback is optional on the wire; present, it must still have the right type.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "common/messages/message_error.h"
#include "common/messages/message_type.h"

namespace hvd::messages {

namespace fields {

[[noreturn]] void throw_missing(std::string_view message, std::string_view field);
[[noreturn]] void throw_bad(std::string_view message, std::string_view field, std::string_view expected,
                            const nlohmann::json& got);

// What a field of type T must be, for the error, and whether `value` is one.
template <class T>
constexpr std::string_view expected_kind() {
  if constexpr (std::is_same_v<T, bool>) return "a boolean";
  else if constexpr (std::is_same_v<T, std::string>) return "a string";
  else if constexpr (std::is_same_v<T, std::vector<std::string>>) return "an array of strings";
  else if constexpr (std::is_same_v<T, nlohmann::json>) return "an object";
  else if constexpr (std::is_floating_point_v<T>) return "a number";
  else if constexpr (std::is_unsigned_v<T>) return "a non-negative integer";
  else return "an integer";
}

template <class T>
bool holds(const nlohmann::json& value) {
  if constexpr (std::is_same_v<T, bool>) return value.is_boolean();
  else if constexpr (std::is_same_v<T, std::string>) return value.is_string();
  else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
    if (!value.is_array()) return false;
    for (const auto& item : value) {
      if (!item.is_string()) return false;
    }
    return true;
  } else if constexpr (std::is_same_v<T, nlohmann::json>) return value.is_object();
  else if constexpr (std::is_floating_point_v<T>) return value.is_number();
  else if constexpr (std::is_unsigned_v<T>) {
    // A frame built in memory holds a non-negative int as signed; one parsed from text, as unsigned.
    return value.is_number_unsigned() || (value.is_number_integer() && value.get<std::int64_t>() >= 0);
  }
  else {
    if (value.is_number_unsigned()) return value.get<std::uint64_t>() <= std::uint64_t(std::numeric_limits<T>::max());
    if (!value.is_number_integer()) return false;
    const auto v = value.get<std::int64_t>();
    return v >= std::numeric_limits<T>::min() && v <= std::numeric_limits<T>::max();
  }
}

template <class T>
T take(std::string_view message, std::string_view field, const nlohmann::json& value) {
  if (!holds<T>(value)) throw_bad(message, field, expected_kind<T>(), value);
  if constexpr (std::is_same_v<T, nlohmann::json>) return value;
  else return value.get<T>();
}

template <class T>
T required(const nlohmann::json& frame, std::string_view message, const char* field) {
  auto it = frame.find(field);
  if (it == frame.end()) throw_missing(message, field);
  return take<T>(message, field, *it);
}

template <class T>
std::optional<T> optional(const nlohmann::json& frame, std::string_view message, const char* field) {
  auto it = frame.find(field);
  if (it == frame.end()) return std::nullopt;
  return take<T>(message, field, *it);
}

// The frame is a `type` message (by its "type", or a store request's "op"), else throws naming the field.
void expect_type(const nlohmann::json& frame, MessageType type);
// A store answer's "ok" is `ok` (true: the answer `type`; false: a refusal), else throws naming it.
void expect_ok(const nlohmann::json& frame, MessageType type, bool ok);

template <class T>
T or_default(const nlohmann::json& frame, std::string_view message, const char* field, T fallback) {
  return optional<T>(frame, message, field).value_or(std::move(fallback));
}

}  // namespace fields
}  // namespace hvd::messages
