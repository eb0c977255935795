// Ring algorithms: reduce-scatter + allgather allreduce, reducescatter, allgatherv.
#include <algorithm>
#include <cstring>

#include "runtime/comm/algo/algorithms.h"
#include "runtime/reduce/reduce.h"

namespace hvd::detail {
namespace {
int mod(int a, int n) { return ((a % n) + n) % n; }

void grow(Scratch& s, std::size_t bytes) {
  if (s.size() < bytes) s.resize(bytes);
}

// Sends `send` to `to` while receiving into `recv` from `from`, piece by piece; after each received piece,
// on_piece(offset, length) runs (the reduction), so computing overlaps the transfer of the next piece.
template <class F>
void pipelined(Links& l, int to, const std::byte* send, std::size_t send_bytes, int from, std::byte* recv,
               std::size_t recv_bytes, std::size_t unit, F&& on_piece) {
  const std::size_t piece = std::max(unit, kPipelineBytes / unit * unit);
  std::size_t s = 0, r = 0;
  while (s < send_bytes || r < recv_bytes) {
    std::size_t sn = std::min(piece, send_bytes - s), rn = std::min(piece, recv_bytes - r);
    l.sendrecv(sn ? to : -1, send + s, sn, rn ? from : -1, recv + r, rn);
    if (rn) on_piece(r, rn);
    s += sn;
    r += rn;
  }
}
}  // namespace

void ring_allreduce(Links& l, void* data, std::size_t count, DataType dtype, ReduceOp op, Scratch& scratch) {
  const int n = l.size(), r = l.rank();
  if (n == 1 || count == 0) return;
  const std::size_t es = size_of(dtype);
  auto* d = static_cast<std::byte*>(data);
  auto begin = [&](int seg) { return count * static_cast<std::size_t>(seg) / static_cast<std::size_t>(n) * es; };
  auto length = [&](int seg) { return begin(seg + 1) - begin(seg); };
  grow(scratch, length(n - 1) + es);
  const int next = mod(r + 1, n), prev = mod(r - 1, n);
  for (int s = 0; s < n - 1; ++s) {
    int send_seg = mod(r - s, n), recv_seg = mod(r - s - 1, n);
    std::byte* acc = d + begin(recv_seg);
    pipelined(l, next, d + begin(send_seg), length(send_seg), prev, scratch.data(), length(recv_seg), es,
              [&](std::size_t off, std::size_t len) {
                reduce(acc + off, acc + off, scratch.data() + off, len / es, dtype, op);
              });
  }
  for (int s = 0; s < n - 1; ++s) {
    int send_seg = mod(r - s + 1, n), recv_seg = mod(r - s, n);
    l.sendrecv(length(send_seg) ? next : -1, d + begin(send_seg), length(send_seg), length(recv_seg) ? prev : -1,
               d + begin(recv_seg), length(recv_seg));
  }
}

void ring_reducescatter(Links& l, const void* in, void* out, const std::vector<std::size_t>& counts, DataType dtype,
                        ReduceOp op, Scratch& scratch) {
  const int n = l.size(), r = l.rank();
  const std::size_t es = size_of(dtype);
  auto* src = static_cast<const std::byte*>(in);
  auto* dst = static_cast<std::byte*>(out);
  const auto disp = block_offsets(counts);
  if (n == 1) {
    if (counts[0] && dst != src) std::memmove(dst, src, counts[0] * es);
    return;
  }
  const std::size_t most = *std::max_element(counts.begin(), counts.end()) * es;
  grow(scratch, 3 * most + es);
  std::byte* recv = scratch.data();
  std::byte* acc[2] = {scratch.data() + most, scratch.data() + 2 * most};
  const int next = mod(r + 1, n), prev = mod(r - 1, n);
  // Step s sends block r-s-1 (own input at s = 0, else the partial sum received at s-1) and receives block r-s-2;
  // at the last step that is block r, reduced straight into out.
  for (int s = 0; s < n - 1; ++s) {
    int send_blk = mod(r - s - 1, n), recv_blk = mod(r - s - 2, n);
    const std::byte* send = s == 0 ? src + disp[send_blk] * es : acc[(s - 1) & 1];
    std::byte* target = s == n - 2 ? dst : acc[s & 1];
    const std::byte* mine = src + disp[recv_blk] * es;
    pipelined(
        l, next, send, counts[send_blk] * es, prev, recv, counts[recv_blk] * es, es,
        [&](std::size_t off, std::size_t len) { reduce(target + off, mine + off, recv + off, len / es, dtype, op); });
  }
}

void ring_allgatherv(Links& l, const void* in, void* out, const std::vector<std::size_t>& bytes) {
  const int n = l.size(), r = l.rank();
  auto* dst = static_cast<std::byte*>(out);
  const auto disp = block_offsets(bytes);
  if (bytes[r] && dst + disp[r] != in) std::memmove(dst + disp[r], in, bytes[r]);
  const int next = mod(r + 1, n), prev = mod(r - 1, n);
  for (int s = 0; s < n - 1; ++s) {
    int send_blk = mod(r - s, n), recv_blk = mod(r - s - 1, n);
    l.sendrecv(bytes[send_blk] ? next : -1, dst + disp[send_blk], bytes[send_blk], bytes[recv_blk] ? prev : -1,
               dst + disp[recv_blk], bytes[recv_blk]);
  }
}

}  // namespace hvd::detail
