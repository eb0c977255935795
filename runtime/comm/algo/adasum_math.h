// Adasum's combination (Maleki et al. 2020, as in Horovod): for vectors a and b,
//   adasum(a, b) = (1 - a.b / (2 |a|^2)) a + (1 - a.b / (2 |b|^2)) b     (a coefficient is 1 when its norm is 0),
// and the combination order every implementation here follows for n ranks: with p the largest power of two
// <= n, rank p+i is first folded into rank i (i < n-p); then, for d = 1, 2, 4 ... < p, block [k*2d, k*2d+d) is
// combined with block [k*2d+d, (k+1)*2d). The result is the same on every rank.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "hvd/types.h"
#include "runtime/reduce/reduce.h"

namespace hvd::detail {

// Only an exactly zero norm takes coefficient 1: the sums are doubles, so a vector of the float's smallest normals
// (|a|^2 near 1e-76 for float32) still has a norm, and a fixed threshold would turn its Adasum into a plain sum.
inline std::pair<double, double> adasum_coefficients(const DotNorms& d) {
  double ca = d.a_sq > 0.0 ? 1.0 - d.dot / (2.0 * d.a_sq) : 1.0;
  double cb = d.b_sq > 0.0 ? 1.0 - d.dot / (2.0 * d.b_sq) : 1.0;
  return {ca, cb};
}

// a = adasum(a, b) on whole vectors.
inline void adasum_pair(void* a, const void* b, std::size_t count, DataType dtype) {
  auto [ca, cb] = adasum_coefficients(dot_norms(a, b, count, dtype));
  combine(a, a, ca, b, cb, count, dtype);
}

// vectors[r] = rank r's input; on return vectors[0] holds the Adasum of all, combined in the order above.
inline void adasum_tree(const std::vector<void*>& vectors, std::size_t count, DataType dtype) {
  const std::size_t n = vectors.size();
  std::size_t p = 1;
  while (p * 2 <= n) p *= 2;
  for (std::size_t i = 0; i + p < n; ++i) adasum_pair(vectors[i], vectors[p + i], count, dtype);
  for (std::size_t d = 1; d < p; d *= 2) {
    for (std::size_t k = 0; k < p; k += 2 * d) adasum_pair(vectors[k], vectors[k + d], count, dtype);
  }
}

}  // namespace hvd::detail
