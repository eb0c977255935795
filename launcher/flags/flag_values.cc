#include "launcher/flags/flag_values.h"

#include <charconv>
#include <cmath>

#include "common/error.h"

namespace hvd::launcher {

int flag_int(std::string_view flag, const std::string& text, int min, int max, std::string_view example) {
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc{} || end != text.data() + text.size()) {
    throw UsageError(std::string{flag} + " '" + text + "' is not a whole number; give e.g. " + std::string{example});
  }
  if (value < min || value > max) {
    throw UsageError(std::string{flag} + " " + text + ": must be from " + std::to_string(min) + " to " +
                     std::to_string(max) + "; give e.g. " + std::string{example});
  }
  return value;
}

double flag_seconds(const std::string& what, const std::string& text, bool allow_zero, std::string_view fix) {
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc{} || end != text.data() + text.size() || !std::isfinite(value)) {
    throw UsageError(what + " '" + text + "' is not a number of seconds; " + std::string{fix});
  }
  if (value < 0 || (value == 0 && !allow_zero)) {
    throw UsageError(what + " " + text + ": must be " + (allow_zero ? "0 or more" : "more than 0") + " seconds; " +
                     std::string{fix});
  }
  return value;
}

}  // namespace hvd::launcher
