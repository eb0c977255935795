// Typed reads of environment variables: the one place hvd calls getenv and turns a variable's text into a value.
// Every read names its variable; a value that does not parse or is out of range throws hvd::UsageError (kind
// usage) naming the variable, the value and what is accepted: "bad HOROVOD_SIZE='x': expected a positive rank
// count". An unset variable reads as std::nullopt, so each caller writes its default beside its use.
#pragma once

#include <functional>
#include <limits>
#include <optional>
#include <string>

namespace hvd::env_var {

// Where values come from: the process environment, or a map in tests.
using Lookup = std::function<std::optional<std::string>(const std::string& name)>;
Lookup process();
// Over "NAME=VALUE" entries, null-terminated (a process's environ, or a test's array); they must outlive it.
Lookup from_entries(const char* const* entries);

// Accepted integers; `expected` words the range for the error ("" gives "an integer from MIN to MAX").
struct IntRange {
  long long min = std::numeric_limits<long long>::min();
  long long max = std::numeric_limits<long long>::max();
  std::string expected{};
};
inline IntRange at_least(long long min, std::string expected = "") {
  IntRange r;
  r.min = min;
  r.expected = std::move(expected);
  return r;
}
inline IntRange between(long long min, long long max, std::string expected = "") {
  return {min, max, std::move(expected)};
}
struct RealRange {
  double min = -std::numeric_limits<double>::max();
  double max = std::numeric_limits<double>::max();
  std::string expected{};
};

// The text as set ("" counts as set).
std::optional<std::string> text(const Lookup& env, const std::string& name);
std::optional<long long> integer(const Lookup& env, const std::string& name, const IntRange& range = {});
std::optional<double> real(const Lookup& env, const std::string& name, const RealRange& range = {});
// "0" and "" are false, any other value true (Horovod's convention for switches).
std::optional<bool> flag(const Lookup& env, const std::string& name);
// Set and non-empty, else UsageError "NAME is not set: <fix>".
std::string required(const Lookup& env, const std::string& name, const std::string& fix);

// The same over the process environment.
std::optional<std::string> text(const std::string& name);
std::optional<long long> integer(const std::string& name, const IntRange& range = {});
std::optional<bool> flag(const std::string& name);
std::string required(const std::string& name, const std::string& fix);

// For APIs that take a C string where null means unset.
inline const char* c_str(const std::optional<std::string>& value) { return value ? value->c_str() : nullptr; }

// Parses a value already read (from a Lookup or a launcher's environment map) under the same rules.
long long parse_integer(const std::string& name, const std::string& value, const IntRange& range = {});
double parse_real(const std::string& name, const std::string& value, const RealRange& range = {});
[[noreturn]] void bad_value(const std::string& name, const std::string& value, const std::string& expected);

}  // namespace hvd::env_var
