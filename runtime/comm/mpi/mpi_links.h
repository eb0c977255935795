// Links (algo/links.h) over an MPI communicator, so the generic algorithms (Adasum's recursive halving) run on
// MPI exactly as they do on TCP. Messages over 1 GiB go in pieces: MPI counts are ints.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "runtime/comm/algo/links.h"
#include "runtime/comm/mpi/mpi_call.h"

namespace hvd::detail {

class MpiLinks : public Links {
 public:
  MpiLinks(MPI_Comm comm, int rank, int size, std::string where)
      : comm_(comm), rank_(rank), size_(size), where_(std::move(where)) {}
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  void sendrecv(int to, const void* send, std::size_t send_bytes, int from, void* recv,
                std::size_t recv_bytes) override {
    constexpr std::size_t kPiece = std::size_t{1} << 30;
    if (to < 0) send_bytes = 0;
    if (from < 0) recv_bytes = 0;
    for (std::size_t off = 0; off < send_bytes || off < recv_bytes; off += kPiece) {
      const int s = static_cast<int>(off < send_bytes ? std::min(kPiece, send_bytes - off) : 0);
      const int r = static_cast<int>(off < recv_bytes ? std::min(kPiece, recv_bytes - off) : 0);
      mpi_check(MPI_Sendrecv(static_cast<const std::uint8_t*>(send) + (s ? off : 0), s, MPI_BYTE,
                             s ? to : MPI_PROC_NULL, kTag, static_cast<std::uint8_t*>(recv) + (r ? off : 0), r,
                             MPI_BYTE, r ? from : MPI_PROC_NULL, kTag, comm_, MPI_STATUS_IGNORE),
                "MPI_Sendrecv", where_ + " (peer " + std::to_string(s ? to : from) + ")");
    }
  }

 private:
  static constexpr int kTag = 7101;
  MPI_Comm comm_;
  int rank_, size_;
  std::string where_;
};

}  // namespace hvd::detail
