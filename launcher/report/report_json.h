// hvdrun --report FILE: the job's verdict for machines, written on success too. Fields (README, "The failure
// report"):
//   {"outcome": "succeeded"|"failed"|"stopped", "exit_code": N, "signal": "SIGINT"|null,
//    "root_cause": null | {"kind": "rank"|"host", "rank", "host", "pid", "exit_code", "signal", "time",
//                          "inferred", "reason", "details": [...], "source"},
//    "ranks": [{"rank", "host", "pid", "state": "ok"|"failed"|"stopped"|"running"|"lost"|"not started",
//               "role": "root cause"|"cause"|"consequence"|null, "exit_code", "signal", "time", "reason", "blame":
//               [...]}],
//    "lost_hosts": [{"host", "reason", "time"}],
//    "waiting": null | {"op", "tensor", "since", "missing": [{"rank", "host", "pid"}]}}
// Times are ISO 8601 UTC with milliseconds; absent values are null.
#pragma once

#include <nlohmann/json.hpp>

#include "launcher/report/report_text.h"

namespace hvd::launcher::report {

nlohmann::json render_json(const Verdict& verdict, const Facts& facts);

// "2026-12-03T18:50:12.345Z"
std::string iso_time(std::int64_t ms);

}  // namespace hvd::launcher::report
