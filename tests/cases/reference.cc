#include "tests/cases/reference.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "tests/workers/element_codec.h"

namespace hvd::cases {
namespace {

std::uint64_t mix(std::uint64_t x) {  // splitmix64's finalizer
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

double epsilon(DataType dtype) {
  switch (dtype) {
    case DataType::kFloat16:
      return std::ldexp(1.0, -10);
    case DataType::kBFloat16:
      return std::ldexp(1.0, -7);
    case DataType::kFloat32:
      return std::ldexp(1.0, -23);
    case DataType::kFloat64:
      return std::ldexp(1.0, -52);
    default:
      return 0;
  }
}

// The input as the rank holds it: the prescale applied in the dtype (integers round to nearest).
double scaled_input(const TensorInput& in, double prescale, int rank, std::int64_t i) {
  const double x = input_value(in, rank, i) * prescale;
  if (in.dtype == DataType::kBool) return x;
  return test::is_float(in.dtype) ? x : std::nearbyint(x);
}

}  // namespace

double input_value(const TensorInput& in, int rank, std::int64_t i) {
  const std::uint64_t h = mix(in.seed ^ mix(static_cast<std::uint64_t>(rank) * 1000003u +
                                            static_cast<std::uint64_t>(in.tensor) * 7919u + static_cast<std::uint64_t>(i)));
  const DataType dt = in.dtype;
  if (dt == DataType::kBool) return static_cast<double>(h & 1);
  const bool is_unsigned = test::is_unsigned(dt), is_float = test::is_float(dt);
  if (in.domain == ValueDomain::kProduct) {
    if (is_unsigned) return 1 + static_cast<double>(h % 2);                      // 1, 2
    if (!is_float) return std::array<double, 3>{-1, 1, 2}[h % 3];                 // at most 2^5 over 5 ranks
    return std::array<double, 6>{-2, -1, -0.5, 0.5, 1, 2}[h % 6];
  }
  if (is_unsigned) return static_cast<double>(h % 13);                           // 0..12
  if (dt == DataType::kInt8) return static_cast<double>(h % 13) - 6;             // -6..6: 5 ranks x2 x2 fit
  if (!is_float) return static_cast<double>(h % 41) - 20;                        // -20..20
  return (static_cast<double>(h % 81) - 40) / 4;                                 // -10..10 in quarters
}

double reduced_value(const TensorInput& in, const Reduction& r, const std::vector<int>& members, std::int64_t i) {
  double acc = 0;
  bool first = true;
  for (int rank : members) {
    const double v = scaled_input(in, r.prescale, rank, i);
    if (first) {
      acc = v;
      first = false;
      continue;
    }
    switch (r.op) {
      case ReduceOp::kSum:
      case ReduceOp::kAverage:
        acc = in.dtype == DataType::kBool ? static_cast<double>(acc != 0 || v != 0) : acc + v;
        break;
      case ReduceOp::kMin:
        acc = std::min(acc, v);
        break;
      case ReduceOp::kMax:
        acc = std::max(acc, v);
        break;
      case ReduceOp::kProduct:
        acc = in.dtype == DataType::kBool ? static_cast<double>(acc != 0 && v != 0) : acc * v;
        break;
      case ReduceOp::kAdasum:
        break;  // not generated: its pairing order is checked by its own tests
    }
  }
  const bool is_float = test::is_float(in.dtype);
  if (r.op == ReduceOp::kAverage) {
    const double n = static_cast<double>(members.size());
    acc = is_float ? acc / n : std::trunc(acc / n);
  }
  if (in.dtype == DataType::kBool) return acc;
  acc *= r.postscale;
  return is_float ? acc : std::nearbyint(acc);
}

double tolerance(const TensorInput& in, const Reduction& r, const std::vector<int>& members, std::int64_t i) {
  if (!test::is_float(in.dtype)) return 0;
  const bool rounds = r.prescale != 1 || r.postscale != 1 || r.op == ReduceOp::kAverage;
  if (!rounds) return 0;
  // Each of the n combining steps and the two scalings may round by one unit of the largest magnitude involved.
  double magnitude = 0;
  for (int rank : members) magnitude += std::fabs(input_value(in, rank, i) * r.prescale);
  magnitude *= std::max(1.0, std::fabs(r.postscale));
  return (static_cast<double>(members.size()) + 3) * epsilon(in.dtype) * std::max(magnitude, 1.0);
}

RowRange scatter_rows(std::int64_t rows, int count, int position) {
  const std::int64_t base = rows / count, extra = rows % count;
  const std::int64_t first = position * base + std::min<std::int64_t>(position, extra);
  return {first, base + (position < extra ? 1 : 0)};
}

}  // namespace hvd::cases
