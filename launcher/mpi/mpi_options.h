// What `hvdrun --mpi` takes from hvdrun's command line: the flags mpirun's own command line carries over (ranks,
// output, SSH, interface, exports, --mpi-args, the command) and hvdrun's --verbose and --report. cli/ fills it
// from LaunchOptions (cli/folder_options.h).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "launcher/ssh/ssh_options.h"

namespace hvd::launcher {

struct MpiOptions {
  int np = 0;
  std::vector<std::string> command;                          // the program and its arguments, verbatim
  std::vector<std::pair<std::string, std::string>> exports;  // -x, resolved, in order, each name once
  std::string mpi_args;                                      // --mpi-args: more words for mpirun, shell-split
  std::string output_dir;                                    // --output-filename
  std::string report_file;                                   // --report
  bool prefix_timestamp = false;
  bool verbose = false;           // print mpirun's command line
  std::string network_interface;  // --network-interface
  SshOptions ssh;                 // how Open MPI's daemons reach other hosts (port, identity, config, accept-new)
};

}  // namespace hvd::launcher
