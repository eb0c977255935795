// hvdrun's closing summary of a job that did not succeed, for people (stderr):
//   hvdrun: the job failed (exit 1)
//   Root cause (first observed failure):
//     rank 1 on h2 (pid 4242) exited with code 1 at 18:50:12.345
//       RuntimeError: boom on rank 1
//         File "train.py", line 12, in <module>
//   Consequences:
//     rank 0 on h1 (pid 4241) exited with code 1: hvd is shut down: rank 1 (h2) called hvd::shutdown()
//   Waiting when the job ended: allreduce 'grad' for 12.0 s, missing rank 1 on h2 (pid 4242)
#pragma once

#include <string>
#include <vector>

#include "launcher/report/ranking.h"

namespace hvd::launcher::report {

struct Facts {
  const std::vector<RankEnding>& endings;
  const std::vector<HostLoss>& losses;
  const JobFate& fate;
};

// "" for a job that succeeded.
std::string render_text(const Verdict& verdict, const Facts& facts);

// "rank 1 on h2 (pid 4242)"
std::string describe_rank(const RankEnding& e);
// "18:50:12.345" in local time
std::string clock_time(std::int64_t ms);

}  // namespace hvd::launcher::report
