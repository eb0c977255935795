#include "launcher/session/restart.h"

#include <algorithm>
#include <iostream>
#include <string>

#include "launcher/report/exit_codes.h"

namespace hvd::launcher {

bool should_restart(int exit_code) {
  using namespace exit_code;
  return exit_code != kOk && exit_code != kUsage && exit_code != kSignalBase + 1 && exit_code != kSignalBase + 2 &&
         exit_code != kSignalBase + 15;
}

int run_with_restarts(const SessionOptions& options, const std::function<int(const SessionOptions&)>& run_once) {
  for (int attempt = 0;; ++attempt) {
    SessionOptions this_attempt = options;
    std::erase_if(this_attempt.exports, [](const auto& e) { return e.first == kRestartAttemptEnv; });
    this_attempt.exports.emplace_back(kRestartAttemptEnv, std::to_string(attempt));
    const int code = run_once(this_attempt);
    if (attempt >= options.max_restarts || !should_restart(code)) {
      if (attempt > 0 && code != exit_code::kOk) {
        std::cerr << "hvdrun: the job failed (exit " << code << ") after " << attempt << " restart"
                  << (attempt == 1 ? "" : "s")
                  << (should_restart(code)
                          ? "; no restarts left (--max-restarts " + std::to_string(options.max_restarts) + ")"
                          : "")
                  << std::endl;
      }
      return code;
    }
    std::cerr << "hvdrun: the job failed (exit " << code << "); restarting it from the start, attempt " << attempt + 2
              << " of " << options.max_restarts + 1 << " (--max-restarts " << options.max_restarts << ")" << std::endl;
  }
}

}  // namespace hvd::launcher
