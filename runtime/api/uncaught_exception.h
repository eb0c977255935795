// A C++ program's uncaught exception, for hvdrun's report: hvd::init() installs a std::terminate handler that,
// before the C++ runtime's own handler aborts, writes the exception's type and message to this rank's error file
// (engine/failure/record_rule.h; a cause, or a consequence when it is an hvd error that another rank is at fault
// for). Other languages' uncaught exceptions (Python's excepthook, through hvd_record_uncaught) take the same rule.
#pragma once

#include <string>

#include "runtime/engine/failure/record_rule.h"

namespace hvd::detail {

// Idempotent; a later call changes the file and rank (an elastic reset may renumber the rank).
void install_uncaught_exception_handler(const std::string& error_file, int rank);

// `e`, uncaught in another language, recorded in `error_file` as this rank's (the rank of the last init(), -1
// before any).
void record_foreign_exception(const std::string& error_file, const UncaughtException& e) noexcept;

}  // namespace hvd::detail
