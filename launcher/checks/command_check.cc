#include "launcher/checks/command_check.h"

#include <unistd.h>

#include <filesystem>

#include "common/error.h"

namespace hvd::launcher {
namespace {

namespace fs = std::filesystem;

bool is_regular(const fs::path& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec);
}

bool is_executable(const fs::path& path) { return is_regular(path) && ::access(path.c_str(), X_OK) == 0; }

std::string absolute_text(const fs::path& path) {
  std::error_code ec;
  auto result = fs::absolute(path, ec);
  return (ec ? path : result.lexically_normal()).string();
}

std::string resolve_path(const std::string& command) {
  std::error_code ec;
  const auto status = fs::status(command, ec);
  if (!fs::exists(status)) {
    throw UsageError("'" + command + "' does not exist; check the path (relative to " + absolute_text(".") + ")");
  }
  if (fs::is_directory(status)) throw UsageError("'" + command + "' is a directory; give the program to run");
  if (!is_executable(command)) throw UsageError("'" + command + "' is not executable; chmod +x " + command);
  return absolute_text(command);
}

}  // namespace

std::string resolve_command(const std::string& command, const std::string& path_env) {
  if (command.empty()) throw UsageError("the command is empty; give the program to run after the options");
  if (command.find('/') != std::string::npos) return resolve_path(command);

  std::string not_executable;  // the first match without execute permission, for the hint
  std::size_t begin = 0;
  while (true) {
    const auto colon = path_env.find(':', begin);
    const auto dir = path_env.substr(begin, colon == std::string::npos ? std::string::npos : colon - begin);
    const fs::path candidate = fs::path(dir.empty() ? "." : dir) / command;
    if (is_executable(candidate)) return absolute_text(candidate);
    if (not_executable.empty() && is_regular(candidate)) not_executable = absolute_text(candidate);
    if (colon == std::string::npos) break;
    begin = colon + 1;
  }
  if (!not_executable.empty()) {
    throw UsageError("command '" + command + "' found at " + not_executable + " but it is not executable; chmod +x " +
                     not_executable);
  }
  throw UsageError("command '" + command + "' not found in PATH; give its path (./" + command +
                   ") or add its directory to PATH");
}

}  // namespace hvd::launcher
