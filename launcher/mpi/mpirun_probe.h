// Which mpirun `hvdrun --mpi` would run, and what it is: HVD_MPIRUN when set (a path), else `mpirun` found in
// PATH. probe_mpirun runs `mpirun --version` (bounded to a few seconds) and reads the MPI's name and version from
// it; only Open MPI's command line is built, so anything else (MPICH and Intel MPI print HYDRA) is reported as such.
#pragma once

#include <optional>
#include <string>

namespace hvd::launcher {

struct MpirunInfo {
  std::string path;
  bool open_mpi = false;
  std::string version;  // "Open MPI 4.1.4", or the first line `--version` printed (what it is instead)
};

// The path of the mpirun to use, or nullopt when PATH has none (HVD_MPIRUN is returned as given).
std::optional<std::string> find_mpirun(const char* hvd_mpirun_env, const char* path_env);

// Runs `path --version`; a failure to run it is reported in `version`, with open_mpi false.
MpirunInfo probe_mpirun(const std::string& path);

}  // namespace hvd::launcher
