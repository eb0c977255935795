// Tree and pairwise algorithms: small allreduce, broadcast, alltoallv, barrier, gather/broadcast of messages.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "runtime/comm/algo/algorithms.h"
#include "runtime/reduce/reduce.h"

namespace hvd::detail {
namespace {
int mod(int a, int n) { return ((a % n) + n) % n; }
}  // namespace

void tree_allreduce(Links& l, void* data, std::size_t count, DataType dtype, ReduceOp op, Scratch& scratch) {
  const int n = l.size(), r = l.rank();
  const std::size_t bytes = count * size_of(dtype);
  if (n == 1 || bytes == 0) return;
  if (scratch.size() < bytes) scratch.resize(bytes);
  // Binomial reduce to 0: the lower rank's value is always the left operand, so the result is deterministic.
  for (int mask = 1; mask < n; mask <<= 1) {
    if (r & mask) {
      l.send(r - mask, data, bytes);
      break;
    }
    if (r + mask < n) {
      l.recv(r + mask, scratch.data(), bytes);
      reduce(data, data, scratch.data(), count, dtype, op);
    }
  }
  tree_broadcast(l, data, bytes, 0);
}

void tree_broadcast(Links& l, void* data, std::size_t bytes, int root) {
  const int n = l.size();
  if (n == 1 || bytes == 0) return;
  const int vr = mod(l.rank() - root, n);
  int parent = -1;
  int mask = 1;
  for (; mask < n; mask <<= 1) {
    if (vr & mask) {
      parent = mod(vr - mask + root, n);
      break;
    }
  }
  std::vector<int> children;
  for (mask >>= 1; mask > 0; mask >>= 1) {
    if (vr + mask < n) children.push_back(mod(vr + mask + root, n));
  }
  auto* p = static_cast<std::byte*>(data);
  for (std::size_t off = 0; off < bytes; off += kPipelineBytes) {
    std::size_t len = std::min(kPipelineBytes, bytes - off);
    if (parent >= 0) l.recv(parent, p + off, len);
    for (int c : children) l.send(c, p + off, len);
  }
}

void pairwise_alltoallv(Links& l, const void* in, const std::vector<std::size_t>& send_bytes, void* out,
                        const std::vector<std::size_t>& recv_bytes) {
  const int n = l.size(), r = l.rank();
  auto* src = static_cast<const std::byte*>(in);
  auto* dst = static_cast<std::byte*>(out);
  const auto sdisp = block_offsets(send_bytes), rdisp = block_offsets(recv_bytes);
  if (send_bytes[r]) std::memmove(dst + rdisp[r], src + sdisp[r], send_bytes[r]);
  for (int s = 1; s < n; ++s) {
    int to = mod(r + s, n), from = mod(r - s, n);
    l.sendrecv(send_bytes[to] ? to : -1, src + sdisp[to], send_bytes[to], recv_bytes[from] ? from : -1,
               dst + rdisp[from], recv_bytes[from]);
  }
}

void dissemination_barrier(Links& l) {
  const int n = l.size(), r = l.rank();
  char out = 1, in = 0;
  for (int k = 1; k < n; k <<= 1) l.sendrecv(mod(r + k, n), &out, 1, mod(r - k, n), &in, 1);
}

std::vector<std::string> gather_bytes(Links& l, const std::string& mine) {
  const int n = l.size();
  if (l.rank() != 0) {
    std::uint64_t len = mine.size();
    l.send(0, &len, sizeof len);
    l.send(0, mine.data(), mine.size());
    return {};
  }
  std::vector<std::string> all(static_cast<std::size_t>(n));
  all[0] = mine;
  for (int p = 1; p < n; ++p) {
    std::uint64_t len = 0;
    l.recv(p, &len, sizeof len);
    all[p].resize(len);
    l.recv(p, all[p].data(), len);
  }
  return all;
}

std::string broadcast_bytes(Links& l, const std::string& from_root) {
  std::uint64_t len = from_root.size();
  tree_broadcast(l, &len, sizeof len, 0);
  std::string s = l.rank() == 0 ? from_root : std::string(len, '\0');
  tree_broadcast(l, s.data(), len, 0);
  return s;
}

}  // namespace hvd::detail
