// hvdrun's own exit codes. A job that ran exits with its first failing worker's code (128+N for signal N).
#pragma once

namespace hvd::launcher::exit_code {

inline constexpr int kOk = 0;
inline constexpr int kUsage = 2;           // bad flags, hosts, hostfile or command (hvd::UsageError)
inline constexpr int kStartFailed = 3;     // an agent could not be started or did not connect in time
inline constexpr int kAgentLost = 4;       // an agent's link died or went silent while the job ran
inline constexpr int kInternal = 5;        // hvdrun itself failed (a bug or a resource limit)
inline constexpr int kMpirunUnusable = 6;  // --mpi: no mpirun, not Open MPI, or it could not be executed
inline constexpr int kElastic = 7;  // elastic: below --min-np past --elastic-timeout, or past --reset-limit
inline constexpr int kCannotExecute = 126;
inline constexpr int kNotFound = 127;
inline constexpr int kSignalBase = 128;  // 130 SIGINT, 143 SIGTERM, 129 SIGHUP

}  // namespace hvd::launcher::exit_code
