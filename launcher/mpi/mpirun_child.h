// hvdrun --mpi runs mpirun as its child, not in its place, so that it can report how the job ended: mpirun's
// stderr comes through hvdrun (relayed as it arrives, byte for byte, and handed over line by line to on_line),
// its stdin and stdout are hvdrun's own. SIGINT, SIGTERM and SIGHUP sent to hvdrun (kill, scancel) go on to
// mpirun, which stops its ranks; a terminal's Ctrl-C reaches mpirun itself (one process group), so hvdrun does not
// send it a second time (Open MPI takes a second SIGINT as "kill now").
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace hvd::launcher {

struct MpirunEnd {
  int status = 0;                 // mpirun's wait status
  std::optional<int> signal;      // the first SIGINT, SIGTERM or SIGHUP hvdrun received, if any
  std::optional<int> exec_errno;  // mpirun could not be executed (status is then meaningless)
};

MpirunEnd run_mpirun(const std::vector<std::string>& argv, const std::vector<std::string>& environment,
                     const std::function<void(const std::string& line)>& on_line);

}  // namespace hvd::launcher
