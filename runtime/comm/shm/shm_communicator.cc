#include "runtime/comm/shm/shm_communicator.h"

#include <algorithm>
#include <cstring>

#include "hvd/error.h"
#include "runtime/comm/algo/adasum_math.h"
#include "runtime/comm/algo/algorithms.h"
#include "runtime/reduce/reduce.h"

namespace hvd::detail {
namespace {
// Parts are cut on 64-byte boundaries so that two ranks never write one cache line.
std::size_t part_begin(std::size_t count, std::size_t esize, int p, int n) {
  std::size_t unit = std::max<std::size_t>(1, 64 / esize);
  std::size_t units = (count + unit - 1) / unit;
  return std::min(count, units * static_cast<std::size_t>(p) / static_cast<std::size_t>(n) * unit);
}

void copy(void* dst, const void* src, std::size_t n) {
  if (n > 0 && dst != src) std::memmove(dst, src, n);
}

std::size_t max_of(const std::vector<std::size_t>& v) { return v.empty() ? 0 : *std::max_element(v.begin(), v.end()); }

// Throws unless `sizes` has one entry per rank: "reducescatter: 3 counts for 2 ranks".
void expect_one_per_rank(const std::vector<std::size_t>& sizes, int ranks, const char* op, const char* what) {
  if (static_cast<int>(sizes.size()) != ranks) {
    throw Error(ErrorKind::kUsage, std::string(op) + ": " + std::to_string(sizes.size()) + " " + what + " for " +
                                       std::to_string(ranks) + " ranks");
  }
}
}  // namespace

ShmCommunicator::ShmCommunicator(Topology topology, std::unique_ptr<ShmGroup> group, std::size_t small_allreduce_bytes)
    : topology_(std::move(topology)), group_(std::move(group)), small_bytes_(small_allreduce_bytes) {
  if (group_) small_bytes_ = std::min(small_bytes_, group_->chunk());
}

// Both views offer each(lo, hi, f): f(user, at, len) for every piece of elements [lo, hi) that lies in one
// buffer, where `at` counts from lo.
class ShmCommunicator::OneBuffer {
 public:
  OneBuffer(void* data, std::size_t esize) : data_(static_cast<std::byte*>(data)), es_(esize) {}

  template <class F>
  void each(std::size_t lo, std::size_t hi, F&& f) const {
    if (lo < hi) f(data_ + lo * es_, 0, hi - lo);
  }

 private:
  std::byte* data_;
  std::size_t es_;
};

class ShmCommunicator::Pieces {
 public:
  Pieces(std::span<const MutableBuffer> buffers, const std::vector<std::size_t>& starts, std::size_t esize)
      : buffers_(buffers), starts_(starts), es_(esize) {}

  template <class F>
  void each(std::size_t lo, std::size_t hi, F&& f) const {
    if (lo >= hi) return;
    std::size_t i = static_cast<std::size_t>(std::upper_bound(starts_.begin(), starts_.begin() + buffers_.size(), lo) -
                                             starts_.begin()) -
                    1;
    for (std::size_t pos = lo; pos < hi && i < buffers_.size(); ++i) {
      const std::size_t end = std::min(hi, starts_[i] + buffers_[i].count);
      if (end <= pos) continue;
      f(static_cast<std::byte*>(buffers_[i].data) + (pos - starts_[i]) * es_, pos - lo, end - pos);
      pos = end;
    }
  }

 private:
  std::span<const MutableBuffer> buffers_;
  const std::vector<std::size_t>& starts_;  // first element of each buffer
  std::size_t es_;
};

void ShmCommunicator::allreduce(void* data, std::size_t count, DataType dtype, ReduceOp op) {
  if (!group_ || count == 0) return;
  allreduce_view(OneBuffer(data, size_of(dtype)), count, dtype, op);
}

void ShmCommunicator::allreduce_buffers(std::span<const MutableBuffer> buffers, DataType dtype, ReduceOp op) {
  if (!group_) return;
  if (starts_.size() < buffers.size()) starts_.resize(buffers.size());
  std::size_t count = 0;
  for (std::size_t i = 0; i < buffers.size(); ++i) {
    starts_[i] = count;
    count += buffers[i].count;
  }
  if (count == 0) return;
  allreduce_view(Pieces(buffers, starts_, size_of(dtype)), count, dtype, op);
}

template <class View>
void ShmCommunicator::allreduce_view(const View& data, std::size_t count, DataType dtype, ReduceOp op) {
  guarded("allreduce", [&] {
    if (count * size_of(dtype) <= small_bytes_) {
      allreduce_small(data, count, dtype, op);
    } else {
      allreduce_large(data, count, dtype, op);
    }
  });
}

template <class View>
void ShmCommunicator::allreduce_small(const View& data, std::size_t count, DataType dtype, ReduceOp op) {
  auto& g = *group_;
  const std::size_t es = size_of(dtype);
  int b = g.next_round();
  data.each(0, count, [&](std::byte* user, std::size_t at, std::size_t len) {
    std::memcpy(g.slot(g.rank(), b) + at * es, user, len * es);
  });
  g.sync("allreduce");
  data.each(0, count, [&](std::byte* user, std::size_t at, std::size_t len) {
    reduce(user, g.slot(0, b) + at * es, g.slot(1, b) + at * es, len, dtype, op);
    for (int q = 2; q < g.size(); ++q) reduce(user, user, g.slot(q, b) + at * es, len, dtype, op);
  });
}

template <class View>
void ShmCommunicator::allreduce_large(const View& data, std::size_t count, DataType dtype, ReduceOp op) {
  auto& g = *group_;
  const int n = g.size(), r = g.rank();
  const std::size_t es = size_of(dtype);
  const std::size_t chunk = g.chunk() / es;
  for (std::size_t off = 0; off < count; off += chunk) {
    const std::size_t m = std::min(chunk, count - off);
    int b = g.next_round();
    for (int p = 0; p < n; ++p) {
      if (p == r) continue;
      std::size_t lo = part_begin(m, es, p, n), hi = part_begin(m, es, p + 1, n);
      data.each(off + lo, off + hi, [&](std::byte* user, std::size_t at, std::size_t len) {
        std::memcpy(g.slot(r, b) + (lo + at) * es, user, len * es);
      });
    }
    g.sync("allreduce");
    const std::size_t lo = part_begin(m, es, r, n), hi = part_begin(m, es, r + 1, n);
    data.each(off + lo, off + hi, [&](std::byte* user, std::size_t at, std::size_t len) {
      const std::size_t slot_at = (lo + at) * es;
      auto src = [&](int q) -> const std::byte* { return q == r ? user : g.slot(q, b) + slot_at; };
      // Rank order, so that the result does not depend on which rank owns the part.
      std::byte* dst = g.slot(r, b) + slot_at;
      if (n == 2) {
        reduce_copy(dst, user, src(0), src(1), len, dtype, op);
      } else {
        reduce(dst, src(0), src(1), len, dtype, op);
        for (int q = 2; q < n - 1; ++q) reduce(dst, dst, src(q), len, dtype, op);
        reduce_copy(dst, user, dst, src(n - 1), len, dtype, op);
      }
    });
    g.sync("allreduce");
    for (int p = 0; p < n; ++p) {
      if (p == r) continue;
      std::size_t plo = part_begin(m, es, p, n), phi = part_begin(m, es, p + 1, n);
      data.each(off + plo, off + phi, [&](std::byte* user, std::size_t at, std::size_t len) {
        std::memcpy(user, g.slot(p, b) + (plo + at) * es, len * es);
      });
    }
  }
}

void ShmCommunicator::reducescatter(const void* in, void* out, const std::vector<std::size_t>& counts, DataType dtype,
                                    ReduceOp op) {
  const int r = topology_.rank;
  const std::size_t es = size_of(dtype);
  expect_one_per_rank(counts, topology_.size, "reducescatter", "counts");
  auto* src = static_cast<const std::byte*>(in);
  auto* dst = static_cast<std::byte*>(out);
  const auto disp = block_offsets(counts);
  if (!group_) return copy(dst, src, counts[0] * es);
  guarded("reducescatter", [&] {
    auto& g = *group_;
    const int n = g.size();
    const std::size_t sub_bytes = g.chunk() / static_cast<std::size_t>(n) / 64 * 64;
    const std::size_t sub = sub_bytes / es;
    const std::size_t rounds = (max_of(counts) + sub - 1) / sub;
    for (std::size_t k = 0; k < rounds; ++k) {
      auto piece = [&](int p) {
        return std::min(counts[static_cast<std::size_t>(p)], (k + 1) * sub) -
               std::min(counts[static_cast<std::size_t>(p)], k * sub);
      };
      int b = g.next_round();
      for (int p = 0; p < n; ++p) {
        if (p != r) std::memcpy(g.slot(r, b) + p * sub_bytes, src + (disp[p] + k * sub) * es, piece(p) * es);
      }
      g.sync("reducescatter");
      const std::size_t len = piece(r);
      if (len == 0) continue;
      auto from = [&](int q) -> const std::byte* {
        return q == r ? src + (disp[r] + k * sub) * es : g.slot(q, b) + r * sub_bytes;
      };
      std::byte* d = dst + k * sub * es;
      reduce(d, from(0), from(1), len, dtype, op);
      for (int q = 2; q < n; ++q) reduce(d, d, from(q), len, dtype, op);
    }
  });
}

void ShmCommunicator::allgatherv(const void* in, void* out, const std::vector<std::size_t>& bytes) {
  const int r = topology_.rank;
  expect_one_per_rank(bytes, topology_.size, "allgatherv", "sizes");
  auto* src = static_cast<const std::byte*>(in);
  auto* dst = static_cast<std::byte*>(out);
  const auto disp = block_offsets(bytes);
  copy(dst + disp[r], src, bytes[r]);
  if (!group_) return;
  guarded("allgatherv", [&] {
    auto& g = *group_;
    const std::size_t c = g.chunk();
    const std::size_t rounds = (max_of(bytes) + c - 1) / c;
    for (std::size_t k = 0; k < rounds; ++k) {
      auto piece = [&](int p) { return std::min(bytes[p], (k + 1) * c) - std::min(bytes[p], k * c); };
      int b = g.next_round();
      std::memcpy(g.slot(r, b), dst + disp[r] + k * c, piece(r));
      g.sync("allgatherv");
      for (int p = 0; p < g.size(); ++p) {
        if (p != r) std::memcpy(dst + disp[p] + k * c, g.slot(p, b), piece(p));
      }
    }
  });
}

void ShmCommunicator::broadcast(void* data, std::size_t bytes, int root) {
  if (root < 0 || root >= topology_.size) {
    throw Error(ErrorKind::kUsage, "broadcast: root " + std::to_string(root) + " is not a rank (size " +
                                       std::to_string(topology_.size) + ")");
  }
  if (!group_) return;
  guarded("broadcast", [&] {
    auto& g = *group_;
    auto* p = static_cast<std::byte*>(data);
    const std::size_t c = g.chunk();
    for (std::size_t off = 0; off < bytes; off += c) {
      std::size_t len = std::min(c, bytes - off);
      int b = g.next_round();
      if (g.rank() == root) std::memcpy(g.slot(root, b), p + off, len);
      g.sync("broadcast");
      if (g.rank() != root) std::memcpy(p + off, g.slot(root, b), len);
    }
  });
}

void ShmCommunicator::alltoallv(const void* in, const std::vector<std::size_t>& send_bytes, void* out,
                                const std::vector<std::size_t>& recv_bytes) {
  const int r = topology_.rank, n = topology_.size;
  if (static_cast<int>(send_bytes.size()) != n || static_cast<int>(recv_bytes.size()) != n) {
    throw Error(ErrorKind::kUsage, "alltoallv: split sizes do not match the " + std::to_string(n) + " ranks");
  }
  if (send_bytes[r] != recv_bytes[r]) {
    throw Error(ErrorKind::kUsage, "alltoallv: rank " + std::to_string(r) + " sends itself " +
                                       std::to_string(send_bytes[r]) + " bytes but expects " +
                                       std::to_string(recv_bytes[r]));
  }
  auto* src = static_cast<const std::byte*>(in);
  auto* dst = static_cast<std::byte*>(out);
  const auto sdisp = block_offsets(send_bytes), rdisp = block_offsets(recv_bytes);
  copy(dst + rdisp[r], src + sdisp[r], send_bytes[r]);
  if (!group_) return;
  guarded("alltoallv", [&] {
    auto& g = *group_;
    // Everyone needs the largest piece anyone sends to agree on the number of rounds.
    int b = g.next_round();
    std::uint64_t mine = std::max(max_of(send_bytes), max_of(recv_bytes));
    std::memcpy(g.slot(r, b), &mine, sizeof mine);
    g.sync("alltoallv");
    std::uint64_t most = 0;
    for (int p = 0; p < n; ++p) {
      std::uint64_t v;
      std::memcpy(&v, g.slot(p, b), sizeof v);
      most = std::max(most, v);
    }
    const std::size_t sub = g.chunk() / static_cast<std::size_t>(n) / 64 * 64;
    const std::size_t rounds = (most + sub - 1) / sub;
    for (std::size_t k = 0; k < rounds; ++k) {
      auto clip = [&](std::size_t total) { return std::min(total, (k + 1) * sub) - std::min(total, k * sub); };
      b = g.next_round();
      for (int p = 0; p < n; ++p) {
        if (p != r) std::memcpy(g.slot(r, b) + p * sub, src + sdisp[p] + k * sub, clip(send_bytes[p]));
      }
      g.sync("alltoallv");
      for (int p = 0; p < n; ++p) {
        if (p != r) std::memcpy(dst + rdisp[p] + k * sub, g.slot(p, b) + r * sub, clip(recv_bytes[p]));
      }
    }
  });
}

void ShmCommunicator::adasum(void* data, std::size_t count, DataType dtype) {
  const std::size_t bytes = count * size_of(dtype);
  dot_norms(data, data, 0, dtype);  // rejects non-floating dtypes before any data moves
  if (!group_ || count == 0) return;
  const int n = group_->size();
  scratch_.resize(std::max(scratch_.size(), bytes * static_cast<std::size_t>(n)));
  allgatherv(data, scratch_.data(), std::vector<std::size_t>(static_cast<std::size_t>(n), bytes));
  std::vector<void*> vectors;
  for (int p = 0; p < n; ++p) vectors.push_back(scratch_.data() + static_cast<std::size_t>(p) * bytes);
  adasum_tree(vectors, count, dtype);
  std::memcpy(data, vectors[0], bytes);
}

}  // namespace hvd::detail
