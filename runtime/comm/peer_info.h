// What each rank publishes in the store at connect time, and how errors name a peer.
#pragma once

#include <string>

namespace hvd::detail {

struct PeerInfo {
  int rank = 0;
  std::string host;     // Topology::hostname: ranks with the same host share memory
  int pid = 0;          // process id, for liveness checks between ranks of one host
  std::string address;  // "ip:port" of the rank's data-plane listener
};

// "rank 3 (h2)" / "rank 3 (h2 10.0.0.2:4401)": the form every data-plane error uses.
inline std::string describe(const PeerInfo& p, bool with_address = false) {
  std::string s = "rank " + std::to_string(p.rank) + " (" + p.host;
  if (with_address && !p.address.empty()) s += " " + p.address;
  return s + ")";
}

}  // namespace hvd::detail
