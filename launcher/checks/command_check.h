// Checks, before anything starts, that the worker command can run here: found in PATH, or an existing
// executable file when it names a path. Returns the absolute path; throws hvd::UsageError naming the command and
// the fix. Searching follows execvp: a name with '/' is a path, an empty PATH entry is the current directory.
#pragma once

#include <string>

namespace hvd::launcher {

std::string resolve_command(const std::string& command, const std::string& path_env);

}  // namespace hvd::launcher
