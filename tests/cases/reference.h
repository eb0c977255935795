// The checker's side of a collective case: every rank's inputs, derived from the op's seed (so any rank can compute
// any other's), and the result each op must give, computed here in double without libhvd's code. Inputs are small
// integers or dyadic fractions (k/4) chosen so that sums and products are exact in every dtype; a result is compared
// exactly unless prescale, postscale or an average can round, where it may differ by the bound tolerance() gives.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hvd/types.h"

namespace hvd::cases {

// What an element's value is drawn from: reductions other than product, product, or data that is only moved.
enum class ValueDomain { kReduce, kProduct, kMove };

struct TensorInput {
  std::uint64_t seed = 0;  // the op's seed
  int tensor = 0;          // its index among a grouped op's tensors
  DataType dtype = DataType::kFloat32;
  ValueDomain domain = ValueDomain::kMove;
};

// Element `i` of job rank `rank`'s input, exactly representable in the dtype.
double input_value(const TensorInput& in, int rank, std::int64_t i);

struct Reduction {
  ReduceOp op = ReduceOp::kSum;
  double prescale = 1, postscale = 1;
};

// The reduced element `i` over `members` (job ranks), as hvd's allreduce defines it: each input scaled by the
// prescale, combined (bool: sum = or, min/product = and, max = or), an average divided by the members' count
// (integers truncated toward zero), then the postscale.
double reduced_value(const TensorInput& in, const Reduction& r, const std::vector<int>& members, std::int64_t i);

// How far a result may be from reduced_value(): 0 (exact) unless a scale or an average rounds in the dtype.
double tolerance(const TensorInput& in, const Reduction& r, const std::vector<int>& members, std::int64_t i);

// Reducescatter's rows for the member at `position` of `count`: [first, first + rows). The first rows % count
// members get one row more.
struct RowRange {
  std::int64_t first = 0, rows = 0;
};
RowRange scatter_rows(std::int64_t rows, int count, int position);

}  // namespace hvd::cases
