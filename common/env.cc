// The only getenv in hvd (scripts/check-structure.sh holds the tree to it) and the number parsing behind it.
#include "common/env.h"

#include <cerrno>
#include <cstdlib>
#include <string_view>

#include "common/error.h"

namespace hvd::env_var {
namespace {

std::string int_words(const IntRange& r) {
  if (!r.expected.empty()) return r.expected;
  return "an integer from " + std::to_string(r.min) + " to " + std::to_string(r.max);
}

std::string real_words(const RealRange& r) {
  if (!r.expected.empty()) return r.expected;
  return "a number from " + std::to_string(r.min) + " to " + std::to_string(r.max);
}

}  // namespace

Lookup process() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());
    if (!v) return std::nullopt;
    return std::string(v);
  };
}

Lookup from_entries(const char* const* entries) {
  return [entries](const std::string& name) -> std::optional<std::string> {
    for (auto entry = entries; entry != nullptr && *entry != nullptr; ++entry) {
      const std::string_view text{*entry};
      if (text.size() > name.size() && text.starts_with(name) && text[name.size()] == '=') {
        return std::string{text.substr(name.size() + 1)};
      }
    }
    return std::nullopt;
  };
}

void bad_value(const std::string& name, const std::string& value, const std::string& expected) {
  throw UsageError("bad " + name + "='" + value + "': expected " + expected);
}

long long parse_integer(const std::string& name, const std::string& value, const IntRange& range) {
  if (value.empty()) bad_value(name, value, int_words(range));
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(value.c_str(), &end, 10);
  if (errno != 0 || *end != '\0' || v < range.min || v > range.max) bad_value(name, value, int_words(range));
  return v;
}

double parse_real(const std::string& name, const std::string& value, const RealRange& range) {
  if (value.empty()) bad_value(name, value, real_words(range));
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(value.c_str(), &end);
  if (errno != 0 || *end != '\0' || !(v >= range.min && v <= range.max)) bad_value(name, value, real_words(range));
  return v;
}

std::optional<std::string> text(const Lookup& env, const std::string& name) { return env(name); }

std::optional<long long> integer(const Lookup& env, const std::string& name, const IntRange& range) {
  auto v = env(name);
  if (!v) return std::nullopt;
  return parse_integer(name, *v, range);
}

std::optional<double> real(const Lookup& env, const std::string& name, const RealRange& range) {
  auto v = env(name);
  if (!v) return std::nullopt;
  return parse_real(name, *v, range);
}

std::optional<bool> flag(const Lookup& env, const std::string& name) {
  auto v = env(name);
  if (!v) return std::nullopt;
  return *v != "0" && !v->empty();
}

std::string required(const Lookup& env, const std::string& name, const std::string& fix) {
  auto v = env(name);
  if (!v || v->empty()) throw UsageError(name + " is not set: " + fix);
  return *v;
}

std::optional<std::string> text(const std::string& name) { return text(process(), name); }
std::optional<long long> integer(const std::string& name, const IntRange& range) {
  return integer(process(), name, range);
}
std::optional<bool> flag(const std::string& name) { return flag(process(), name); }
std::string required(const std::string& name, const std::string& fix) { return required(process(), name, fix); }

}  // namespace hvd::env_var
