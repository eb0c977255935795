// Adasum by recursive halving (Maleki et al. 2020, Horovod's AdasumMPI), extended to any number of ranks by
// folding the ranks past the largest power of two into the first ones (see adasum_math.h for the order).
#include <cstring>
#include <numeric>
#include <utility>

#include "runtime/comm/algo/adasum_math.h"
#include "runtime/comm/algo/algorithms.h"

namespace hvd::detail {
namespace {
// Sums the three partial sums over the aligned block of `width` ranks around `rank` (recursive doubling; the
// lower rank's value is always on the left, so every member gets the same bits).
DotNorms sum_over_block(Links& l, DotNorms mine, int width) {
  for (int e = 1; e < width; e <<= 1) {
    int partner = l.rank() ^ e;
    double out[3] = {mine.dot, mine.a_sq, mine.b_sq}, in[3];
    l.sendrecv(partner, out, sizeof out, partner, in, sizeof in);
    bool lower = l.rank() < partner;
    const double* lo = lower ? out : in;
    const double* hi = lower ? in : out;
    mine = {lo[0] + hi[0], lo[1] + hi[1], lo[2] + hi[2]};
  }
  return mine;
}
}  // namespace

void adasum_allreduce(Links& l, void* data, std::size_t count, DataType dtype, Scratch& scratch) {
  const int n = l.size(), r = l.rank();
  const std::size_t es = size_of(dtype);
  const std::size_t bytes = count * es;
  if (n == 1 || count == 0) return;
  dot_norms(data, data, 0, dtype);  // rejects non-floating dtypes before anything is sent
  int p = 1;
  while (p * 2 <= n) p *= 2;
  auto* d = static_cast<std::byte*>(data);
  if (scratch.size() < bytes) scratch.resize(bytes);
  std::byte* tmp = scratch.data();

  if (r >= p) {  // folded rank: hand over the vector, get the result back
    l.send(r - p, d, bytes);
    l.recv(r - p, d, bytes);
    return;
  }
  if (r + p < n) {
    l.recv(r + p, tmp, bytes);
    adasum_pair(d, tmp, count, dtype);
  }
  std::vector<int> members(static_cast<std::size_t>(p));
  std::iota(members.begin(), members.end(), 0);  // ranks 0..p-1: the power of two that does the halving
  SubLinks group(l, members, r);

  std::size_t lo = 0, len = count;
  std::vector<std::pair<std::size_t, std::size_t>> ranges;
  for (int dist = 1; dist < p; dist <<= 1) {
    const int partner = r ^ dist;
    const bool left = (r & dist) == 0;
    const std::size_t first = len / 2;
    const std::size_t keep_lo = left ? lo : lo + first, keep_len = left ? first : len - first;
    const std::size_t give_lo = left ? lo + first : lo, give_len = len - keep_len;
    group.sendrecv(give_len ? partner : -1, d + give_lo * es, give_len * es, keep_len ? partner : -1, tmp,
                   keep_len * es);
    std::byte* mine = d + keep_lo * es;
    const std::byte* a = left ? mine : tmp;
    const std::byte* b = left ? tmp : mine;
    DotNorms partial = dot_norms(a, b, keep_len, dtype);
    auto [ca, cb] = adasum_coefficients(sum_over_block(group, partial, 2 * dist));
    combine(mine, a, ca, b, cb, keep_len, dtype);
    ranges.emplace_back(lo, len);
    lo = keep_lo;
    len = keep_len;
  }
  for (int dist = p / 2; dist >= 1; dist >>= 1) {
    const int partner = r ^ dist;
    auto [plo, plen] = ranges.back();
    ranges.pop_back();
    // The partner holds the rest of [plo, plo + plen).
    std::size_t other_lo = lo == plo ? plo + len : plo;
    std::size_t other_len = plen - len;
    group.sendrecv(len ? partner : -1, d + lo * es, len * es, other_len ? partner : -1, d + other_lo * es,
                   other_len * es);
    lo = plo;
    len = plen;
  }
  if (r + p < n) l.send(r + p, d, bytes);
}

}  // namespace hvd::detail
