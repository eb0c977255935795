// An EnvLookup (runtime/config.h) over a fixed map, so tests feed HOROVOD_* variables without touching the
// process environment; and the message of the hvd::Error a call throws ("" when it throws none).
#pragma once

#include <map>
#include <string>

#include "hvd/error.h"
#include "runtime/config.h"

namespace hvd::test {

inline detail::EnvLookup env_map(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const std::string& n) -> std::optional<std::string> {
    auto it = vars.find(n);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

template <typename F>
std::string error_message_of(F&& call) {
  try {
    call();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace hvd::test
