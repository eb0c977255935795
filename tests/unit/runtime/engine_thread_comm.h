// Test-only Communicator for ranks as threads of one process: every collective is "publish a pointer, barrier,
// read the others, barrier". Counts negotiation calls so tests can tell a cached step from a full one, and can be
// broken on purpose to play a dead peer.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "hvd/error.h"
#include "runtime/comm/communicator.h"
#include "runtime/reduce/reduce.h"

namespace hvd::test {

class ThreadHub {
 public:
  explicit ThreadHub(int size) : size_(size), ptrs_(size), strs_(size) {}
  int size() const { return size_; }

  void barrier() {
    std::unique_lock lock(mutex_);
    check();
    auto gen = generation_;
    if (++arrived_ == size_) {
      arrived_ = 0;
      ++generation_;
      cv_.notify_all();
      return;
    }
    cv_.wait(lock, [&] { return generation_ != gen || !broken_.empty(); });
    check();
  }
  void break_with(const std::string& why) {
    std::lock_guard lock(mutex_);
    broken_ = why;
    cv_.notify_all();
  }
  std::vector<const void*>& ptrs() { return ptrs_; }
  std::vector<std::string>& strs() { return strs_; }
  std::atomic<int> gathers{0};

 private:
  void check() {
    if (!broken_.empty()) throw Error(broken_);
  }
  int size_;
  std::mutex mutex_;
  std::condition_variable cv_;
  int arrived_ = 0;
  std::uint64_t generation_ = 0;
  std::string broken_;
  std::vector<const void*> ptrs_;
  std::vector<std::string> strs_;
};

class ThreadComm : public detail::Communicator {
 public:
  ThreadComm(std::shared_ptr<ThreadHub> hub, int rank) : hub_(std::move(hub)) {
    topo_.rank = rank;
    topo_.size = hub_->size();
    topo_.local_rank = rank;
    topo_.local_size = hub_->size();
    topo_.hostname = "h" + std::to_string(rank % 2 + 1);
    for (int r = 0; r < hub_->size(); ++r) topo_.hosts.push_back("h" + std::to_string(r % 2 + 1));
  }
  const detail::Topology& topology() const override { return topo_; }

  void allreduce(void* data, std::size_t count, DataType dtype, ReduceOp op) override {
    std::size_t bytes = count * size_of(dtype);
    std::vector<std::uint8_t> acc(bytes);
    publish(data);
    std::memcpy(acc.data(), hub_->ptrs()[0], bytes);
    for (int r = 1; r < hub_->size(); ++r) detail::reduce(acc.data(), acc.data(), hub_->ptrs()[r], count, dtype, op);
    hub_->barrier();
    std::memcpy(data, acc.data(), bytes);
  }
  void allgatherv(const void* in, void* out, const std::vector<std::size_t>& bytes) override {
    publish(in);
    auto* o = static_cast<std::uint8_t*>(out);
    for (int r = 0; r < hub_->size(); ++r) {
      if (bytes[r]) std::memcpy(o, hub_->ptrs()[r], bytes[r]);
      o += bytes[r];
    }
    hub_->barrier();
  }
  void broadcast(void* data, std::size_t bytes, int root) override {
    publish(data);
    if (topo_.rank != root && bytes) std::memcpy(data, hub_->ptrs()[root], bytes);
    hub_->barrier();
  }
  void alltoallv(const void* in, const std::vector<std::size_t>& send, void* out,
                 const std::vector<std::size_t>& recv) override {
    // Publish my send offsets too: the pointer table holds the input; the offsets are recomputed by readers.
    sends_ = send;
    publish(in);
    auto* o = static_cast<std::uint8_t*>(out);
    for (int r = 0; r < hub_->size(); ++r) {
      auto* peer = peer_comms_ ? (*peer_comms_)[r] : nullptr;
      std::size_t off = 0;
      for (int q = 0; q < topo_.rank; ++q) off += peer->sends_[q];
      if (recv[r]) std::memcpy(o, static_cast<const std::uint8_t*>(hub_->ptrs()[r]) + off, recv[r]);
      o += recv[r];
    }
    hub_->barrier();
  }
  void reducescatter(const void* in, void* out, const std::vector<std::size_t>& counts, DataType dtype,
                     ReduceOp op) override {
    std::size_t off = 0;
    for (int q = 0; q < topo_.rank; ++q) off += counts[q];
    std::size_t es = size_of(dtype), n = counts[topo_.rank];
    std::vector<std::uint8_t> acc(n * es);
    publish(in);
    if (n) {
      std::memcpy(acc.data(), static_cast<const std::uint8_t*>(hub_->ptrs()[0]) + off * es, n * es);
      for (int r = 1; r < hub_->size(); ++r) {
        detail::reduce(acc.data(), acc.data(), static_cast<const std::uint8_t*>(hub_->ptrs()[r]) + off * es, n, dtype,
                       op);
      }
    }
    hub_->barrier();
    if (n) std::memcpy(out, acc.data(), n * es);
  }
  void adasum(void* data, std::size_t count, DataType dtype) override { allreduce(data, count, dtype, ReduceOp::kSum); }
  void barrier() override { hub_->barrier(); }
  std::vector<std::string> gather_to_root(const std::string& mine) override {
    if (topo_.rank == 0) ++hub_->gathers;
    hub_->strs()[topo_.rank] = mine;
    hub_->barrier();
    std::vector<std::string> all;
    if (topo_.rank == 0) all = hub_->strs();
    hub_->barrier();
    return all;
  }
  std::string broadcast_from_root(const std::string& from_root) override {
    if (topo_.rank == 0) hub_->strs()[0] = from_root;
    hub_->barrier();
    std::string out = hub_->strs()[0];
    hub_->barrier();
    return out;
  }

  // Alltoall needs each peer's send sizes; the test wires the comms together after creating them.
  void set_peers(const std::vector<ThreadComm*>* peers) { peer_comms_ = peers; }

 private:
  void publish(const void* p) {
    hub_->ptrs()[topo_.rank] = p;
    hub_->barrier();
  }
  std::shared_ptr<ThreadHub> hub_;
  detail::Topology topo_;
  std::vector<std::size_t> sends_;
  const std::vector<ThreadComm*>* peer_comms_ = nullptr;
};

}  // namespace hvd::test
