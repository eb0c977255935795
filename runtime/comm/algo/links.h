// Point-to-point links among the members of a group, the one thing the generic algorithms (algo/*.h) need.
// Ranks here are positions in the group (0..size-1), not necessarily global ranks.
// Contract: sendrecv moves both messages concurrently (so rings never deadlock on full socket buffers), blocks
// until both are complete, and throws hvd::Error naming the peer when a link fails; zero-byte messages are not
// sent at all, so both sides must agree on every size.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace hvd::detail {

class Links {
 public:
  virtual ~Links() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // to/from may be -1 (nothing to send / receive).
  virtual void sendrecv(int to, const void* send, std::size_t send_bytes, int from, void* recv,
                        std::size_t recv_bytes) = 0;

  void send(int to, const void* data, std::size_t bytes) { sendrecv(to, data, bytes, -1, nullptr, 0); }
  void recv(int from, void* data, std::size_t bytes) { sendrecv(-1, nullptr, 0, from, data, bytes); }
};

// A subgroup of another group's links: members[i] is the base rank of subgroup rank i.
class SubLinks : public Links {
 public:
  SubLinks(Links& base, std::vector<int> members, int rank) : base_(base), members_(std::move(members)), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return static_cast<int>(members_.size()); }
  void sendrecv(int to, const void* send, std::size_t send_bytes, int from, void* recv,
                std::size_t recv_bytes) override {
    base_.sendrecv(to < 0 ? -1 : members_[static_cast<std::size_t>(to)], send, send_bytes,
                   from < 0 ? -1 : members_[static_cast<std::size_t>(from)], recv, recv_bytes);
  }

 private:
  Links& base_;
  std::vector<int> members_;
  int rank_;
};

}  // namespace hvd::detail
