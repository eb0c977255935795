// Reading an advisory JSON document (a failure record, a stop's facts): a field that is missing, null or of the
// wrong type keeps the caller's default, because a record is advice, never a reason to fail the report.
#pragma once

#include <nlohmann/json.hpp>

namespace hvd {

template <typename T>
void get_if_present(const nlohmann::json& j, const char* key, T& out) {
  if (auto it = j.find(key); it != j.end() && !it->is_null()) {
    try {
      out = it->get<T>();
    } catch (const nlohmann::json::exception&) {
      // the wrong type: the default stands
    }
  }
}

}  // namespace hvd
