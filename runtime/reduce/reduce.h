// Element-wise kernels on host buffers, for every hvd::DataType: the reductions the collectives apply
// (sum, min, max, product), scaling (Average, prescale/postscale) and Adasum's dot products and combination.
// float16/bfloat16 compute in float and round to nearest even once per operation; integers wrap on overflow;
// bool: sum and max are "or", product and min are "and". Loops are plain and vectorize at -O3.
#pragma once

#include <cstddef>

#include "hvd/types.h"

namespace hvd::detail {

bool is_floating(DataType dtype);  // float16, bfloat16, float32, float64

// dst[i] = a[i] op b[i] for i < count; dst may be a or b. op: kSum, kMin, kMax or kProduct (throws otherwise).
void reduce(void* dst, const void* a, const void* b, std::size_t count, DataType dtype, ReduceOp op);

// reduce(), and the result also lands in `copy` (block by block, so the second store reads from L1, not memory):
// the shared-memory allreduce needs its part both in the caller's buffer and in its slot. `copy` may be a or b.
void reduce_copy(void* dst, void* copy, const void* a, const void* b, std::size_t count, DataType dtype, ReduceOp op);

// data[i] *= factor (integers: in double, rounded to nearest even, as runtime/engine/scale.h does; bool keeps its
// value unless factor is 0).
void scale(void* data, std::size_t count, DataType dtype, double factor);

// Adasum pieces (floating types only; throw hvd::Error otherwise).
struct DotNorms {
  double dot = 0, a_sq = 0, b_sq = 0;
};
DotNorms dot_norms(const void* a, const void* b, std::size_t count, DataType dtype);
// dst[i] = ca * a[i] + cb * b[i]; dst may be a or b.
void combine(void* dst, const void* a, double ca, const void* b, double cb, std::size_t count, DataType dtype);

}  // namespace hvd::detail
