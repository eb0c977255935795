#include "common/logging.h"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <climits>

#include "common/error.h"

namespace hvd {

std::string this_hostname() {
  char name[HOST_NAME_MAX + 1] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "localhost";
  return name;
}

void setup_logging(const std::string& component, const std::string& level) {
  const std::string level_name = level == "warn" ? "warning" : level;
  auto parsed = spdlog::level::from_str(level_name);
  if (parsed == spdlog::level::off && level_name != "off") {
    throw UsageError("unknown log level '" + level + "': use trace, debug, info, warning, error or off");
  }
  const std::string name = component + "-" + std::to_string(::getpid());
  spdlog::drop(name);  // set up again (the SSH module's entry runs once per remote host): the newer level wins
  auto logger = spdlog::stderr_logger_mt(name);
  logger->set_pattern("[%H:%M:%S.%e] " + component + " " + this_hostname() + ":" + std::to_string(::getpid()) +
                      " %l: %v");
  logger->set_level(parsed);
  spdlog::set_default_logger(logger);
}

}  // namespace hvd
