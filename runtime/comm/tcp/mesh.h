// A full mesh of authenticated TCP links among the ranks of a job (Links over global ranks). Setup: rank i dials
// every rank j < i and accepts every rank j > i; each link runs the job-secret handshake (common/handshake.h)
// and one sealed frame {"rank", "job"} naming the dialer; after that, bulk bytes flow raw.
// A failed link fails the mesh: the error is kept and rethrown by every later call, and all links are shut
// down, so the peers' pending calls fail too instead of waiting.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "common/unique_fd.h"
#include "runtime/comm/algo/links.h"
#include "runtime/comm/peer_info.h"
#include "runtime/comm/stop_reason.h"
#include "runtime/comm/tcp/listener.h"

namespace hvd::detail {

class TcpMesh : public Links {
 public:
  TcpMesh(TcpListener& listener, std::vector<PeerInfo> peers, int rank, const std::string& secret,
          const std::string& job_id, std::chrono::milliseconds timeout);

  int rank() const override { return rank_; }
  int size() const override { return static_cast<int>(peers_.size()); }
  void sendrecv(int to, const void* send, std::size_t send_bytes, int from, void* recv,
                std::size_t recv_bytes) override;

  // Marks the mesh failed with `reason` (first reason wins) and shuts every link down. Never throws.
  void fail(const std::string& reason) noexcept;
  // fail() for other threads (Communicator::abort): shuts every link down so that a blocked sendrecv wakes, and
  // makes the pending and every later call throw ErrorKind::kMembership saying `stop`. Never throws.
  void abort(const Stop& stop) noexcept;
  void check() const;
  const PeerInfo& peer(int rank) const { return peers_[static_cast<std::size_t>(rank)]; }

 private:
  void dial(int to, const std::string& secret, const std::string& job_id, std::chrono::milliseconds timeout);
  void accept_one(TcpListener& listener, const std::string& secret, const std::string& job_id,
                  std::chrono::milliseconds timeout);
  [[noreturn]] void link_error(int peer, const char* what, const std::string& detail);
  [[noreturn]] void throw_aborted() const;

  std::vector<PeerInfo> peers_;
  int rank_;
  std::vector<UniqueFd> links_;  // links_[r]: socket to rank r (invalid for ourselves)
  std::optional<std::string> failed_;
  int failed_peer_ = -1;  // the peer whose link failed first, when known, by its rank in the job
  StopReason abort_;
};

}  // namespace hvd::detail
