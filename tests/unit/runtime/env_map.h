// An EnvLookup (runtime/comm/config.h) over a fixed map, so tests feed HOROVOD_* variables without touching the
// process environment; with error_of (tests/unit/error_of.h) for the message of the error a call throws.
#pragma once

#include <map>
#include <string>

#include "runtime/comm/config.h"
#include "tests/unit/error_of.h"

namespace hvd::test {

inline detail::EnvLookup env_map(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const std::string& n) -> std::optional<std::string> {
    auto it = vars.find(n);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

}  // namespace hvd::test
