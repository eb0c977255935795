#include "launcher/checks/check_build.h"

#include <cstdlib>
#include <iostream>
#include <sstream>

#include "common/env.h"
#include "launcher/checks/build_info.h"

namespace hvd::launcher {
namespace {

// One "    [X] name (version)" line; the version only when the item is there and has one.
std::string item(bool available, std::string_view name, std::string_view version = {}) {
  std::string line = std::string{"    ["} + (available ? "X" : " ") + "] " + std::string{name};
  if (available && !version.empty()) line += " (" + std::string{version} + ")";
  return line + "\n";
}

std::string nccl_version() {
  return std::string{build_info::kNcclVersion} + ", CUDA " + std::string{build_info::kCudaVersion};
}

// Probed now, unlike the rest: the mpirun in PATH need not be the MPI this build was compiled against.
std::string mpirun_line(const std::optional<MpirunInfo>& mpirun) {
  if (!mpirun) return "mpirun for --mpi:             none in PATH (apt-get install openmpi-bin, or set HVD_MPIRUN)\n";
  if (!mpirun->open_mpi) {
    return "mpirun for --mpi:             " + mpirun->path + " is not Open MPI (" + mpirun->version +
           "); --mpi needs Open MPI's\n";
  }
  return "mpirun for --mpi:             " + mpirun->path + " (" + mpirun->version + ")\n";
}

}  // namespace

std::string build_report(const std::optional<MpirunInfo>& mpirun) {
  std::ostringstream out;
  out << "hvd v" << build_info::kVersion << ":\n\n"
      << "Available frameworks:\n"
      << item(build_info::kCppApi, "C++ API") << item(build_info::kTorch, "LibTorch", build_info::kTorchVersion)
      << "\nAvailable controllers:\n"
      << item(true, "built-in (TCP)") << item(build_info::kMpi, "MPI", build_info::kMpiVersion)
      << "\nAvailable tensor operations:\n"
      << item(build_info::kNccl, "NCCL", nccl_version()) << item(build_info::kMpi, "MPI", build_info::kMpiVersion)
      << item(true, "TCP/shared memory") << "\n"
      << mpirun_line(mpirun);
  return out.str();
}

int check_build() {
  std::optional<MpirunInfo> mpirun;
  if (const auto path = find_mpirun(env_var::c_str(env_var::text("HVD_MPIRUN")), env_var::c_str(env_var::text("PATH"))))
    mpirun = probe_mpirun(*path);
  std::cout << build_report(mpirun) << std::flush;
  return 0;
}

}  // namespace hvd::launcher
