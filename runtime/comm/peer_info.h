// What each rank publishes in the store at connect time, and how errors name a peer: by its rank in the job.
#pragma once

#include <string>

namespace hvd::detail {

struct PeerInfo {
  int rank = 0;
  std::string host;     // Topology::hostname: ranks with the same host share memory
  int pid = 0;          // process id, for liveness checks between ranks of one host
  std::string address;  // "ip:port" of the rank's data-plane listener
  int job_rank = -1;    // a process set's member: its rank in the job, how errors name it; -1: `rank` is
};

// The rank errors give `p`: its rank in the job (a process set's communicator numbers its members 0..).
inline int job_rank(const PeerInfo& p) { return p.job_rank >= 0 ? p.job_rank : p.rank; }

// "rank 3 (h2)" / "rank 3 (h2 10.0.0.2:4401)": the form every data-plane error uses.
inline std::string describe(const PeerInfo& p, bool with_address = false) {
  std::string s = "rank " + std::to_string(job_rank(p)) + " (" + p.host;
  if (with_address && !p.address.empty()) s += " " + p.address;
  return s + ")";
}

}  // namespace hvd::detail
