// A C++ program's uncaught exception, for hvdrun's report: hvd::init() installs a std::terminate handler that,
// before the C++ runtime's own handler aborts, writes the exception's type and message to this rank's error file
// (engine/failure_file.h; a cause, or a consequence when it is an hvd error that another rank is at fault for).
#pragma once

#include <string>

namespace hvd::detail {

// Idempotent; a later call changes the file and rank (an elastic reset may renumber the rank).
void install_uncaught_exception_handler(const std::string& error_file, int rank);

}  // namespace hvd::detail
