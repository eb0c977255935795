// spdlog setup shared by hvdrun, hvd-agent and libhvd: one prefix built once ("hvd-agent host:pid"),
// output to stderr, level from a name (trace, debug, info, warning, error, off).
#pragma once

#include <string>

namespace hvd {

// Throws hvd::UsageError naming the value when `level` is not a known level name.
void setup_logging(const std::string& component, const std::string& level);
std::string this_hostname();

}  // namespace hvd
