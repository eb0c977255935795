// hvdrun's command line parsed the way the launcher tests need it: the arguments after "hvdrun", and an
// environ-style array ("NAME=VALUE" entries, null-terminated; none by default) for -x values, Slurm and the rest.
#pragma once

#include <initializer_list>
#include <string>
#include <variant>
#include <vector>

#include "common/error.h"
#include "launcher/cli/options.h"
#include "tests/unit/error_of.h"

namespace hvd::test {

using Args = std::initializer_list<const char*>;
inline const char* const kNoEnvironment[] = {nullptr};

inline std::variant<launcher::LaunchOptions, launcher::ExitNow> parse_any(
    Args args, const char* const* environ_ = kNoEnvironment) {
  std::vector<const char*> argv{"hvdrun"};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.push_back(nullptr);
  return launcher::parse_command_line(static_cast<int>(argv.size() - 1), argv.data(), environ_);
}

inline launcher::LaunchOptions parse(Args args, const char* const* environ_ = kNoEnvironment) {
  return std::get<launcher::LaunchOptions>(parse_any(args, environ_));
}

// The usage error's message, "" when the command line parses (beside error_of(call) of tests/unit/error_of.h).
inline std::string error_of(Args args, const char* const* environ_ = kNoEnvironment) {
  return error_of<UsageError>([&] { parse_any(args, environ_); });
}

}  // namespace hvd::test
