// Checked conversions of flag values, shared by the flag parsers (cli/options.cc, elastic/elastic_options.cc).
// Each throws hvd::UsageError naming the flag, the value and the fix.
#pragma once

#include <string>
#include <string_view>

namespace hvd::launcher {

// A whole number from min to max; `example` shows a good value ("-np 4").
int flag_int(std::string_view flag, const std::string& text, int min, int max, std::string_view example);
// Seconds, more than 0 (or 0 too with allow_zero); `what` names the flag or variable, `fix` says what to do.
double flag_seconds(const std::string& what, const std::string& text, bool allow_zero, std::string_view fix);

}  // namespace hvd::launcher
