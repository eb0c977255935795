// Reduction kernels: every dtype and op, integer wrap-around, bool logic, float16/bfloat16 rounding, scaling.
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "hvd/error.h"
#include "runtime/reduce/half.h"
#include "runtime/reduce/reduce.h"
#include "tests/unit/runtime/comm_test_util.h"

using namespace hvd;
using namespace hvd::detail;

TEST_CASE("every dtype reduces sum, min, max and product element-wise, in place too") {
  for (DataType t : test::kAllTypes) {
    CAPTURE(name_of(t));
    const std::size_t n = 1037;  // not a multiple of any vector width
    std::vector<std::byte> a(n * size_of(t)), b(a.size()), d(a.size());
    for (std::size_t i = 0; i < n; ++i) {
      test::put(t, a.data(), i, static_cast<double>(i % 7));
      test::put(t, b.data(), i, static_cast<double>((i * 5) % 6));
    }
    for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kMin, ReduceOp::kMax, ReduceOp::kProduct}) {
      reduce(d.data(), a.data(), b.data(), n, t, op);
      for (std::size_t i = 0; i < n; ++i) {
        double x = static_cast<double>(i % 7), y = static_cast<double>((i * 5) % 6), want;
        if (t == DataType::kBool) {
          bool and_op = op == ReduceOp::kProduct || op == ReduceOp::kMin;
          want = and_op ? (x != 0 && y != 0) : (x != 0 || y != 0);
        } else {
          want = op == ReduceOp::kSum ? x + y : op == ReduceOp::kMin ? std::min(x, y)
               : op == ReduceOp::kMax ? std::max(x, y) : x * y;
        }
        REQUIRE(test::get(t, d.data(), i) == want);
      }
    }
    auto copy = a;
    reduce(copy.data(), copy.data(), b.data(), n, t, ReduceOp::kSum);
    reduce(d.data(), a.data(), b.data(), n, t, ReduceOp::kSum);
    CHECK(copy == d);
  }
}

TEST_CASE("integers wrap instead of overflowing") {
  std::int8_t a[2] = {127, -128}, b[2] = {1, -1}, d[2];
  reduce(d, a, b, 2, DataType::kInt8, ReduceOp::kSum);
  CHECK(d[0] == -128);
  CHECK(d[1] == 127);
  std::uint16_t x = 65535, y = 65535, z;
  reduce(&z, &x, &y, 1, DataType::kUInt16, ReduceOp::kProduct);
  CHECK(z == 1);
  std::int64_t big = std::numeric_limits<std::int64_t>::max(), one = 1, r;
  reduce(&r, &big, &one, 1, DataType::kInt64, ReduceOp::kSum);
  CHECK(r == std::numeric_limits<std::int64_t>::min());
}

TEST_CASE("float16 conversion is exact both ways for every half value") {
  for (std::uint32_t h = 0; h < 65536; ++h) {
    float f = fp16::half_to_float(static_cast<std::uint16_t>(h));
    if (std::isnan(f)) {
      CHECK(std::isnan(fp16::half_to_float(fp16::float_to_half(f))));
      continue;
    }
    REQUIRE(fp16::float_to_half(f) == h);
  }
  CHECK(fp16::half_to_float(0x3c00) == 1.0f);
  CHECK(fp16::half_to_float(0x0001) == std::ldexp(1.0f, -24));
  CHECK(fp16::half_to_float(0x7bff) == 65504.0f);
  CHECK(std::isinf(fp16::half_to_float(0x7c00)));
}

TEST_CASE("float to float16 rounds to nearest, ties to even") {
  CHECK(fp16::float_to_half(1.0f + std::ldexp(1.0f, -11)) == 0x3c00);      // tie, 1.0 is even
  CHECK(fp16::float_to_half(1.0f + 3 * std::ldexp(1.0f, -11)) == 0x3c02);  // tie, rounds up to even
  CHECK(fp16::float_to_half(1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -20)) == 0x3c01);  // above the tie
  CHECK(fp16::float_to_half(65519.0f) == 0x7bff);
  CHECK(fp16::float_to_half(65520.0f) == 0x7c00);                   // rounds to infinity
  CHECK(fp16::float_to_half(std::ldexp(1.0f, -25)) == 0x0000);      // subnormal tie to even (0)
  CHECK(fp16::float_to_half(std::ldexp(3.0f, -26)) == 0x0001);      // 0.75 ulp -> 1 ulp
  CHECK(fp16::float_to_half(std::ldexp(3.0f, -25)) == 0x0002);      // 1.5 ulp tie -> 2 (even)
  CHECK(fp16::float_to_half(-2.0f) == 0xc000);
  CHECK(std::isnan(fp16::half_to_float(fp16::float_to_half(std::numeric_limits<float>::quiet_NaN()))));
#if defined(__FLT16_MAX__)
  // Against the compiler's correctly rounded conversion, over a sweep of float bit patterns.
  for (std::uint64_t bits = 0; bits < 0x100000000ull; bits += 0x1001) {
    float f = std::bit_cast<float>(static_cast<std::uint32_t>(bits));
    if (std::isnan(f)) continue;
    REQUIRE(fp16::float_to_half(f) == std::bit_cast<std::uint16_t>(static_cast<_Float16>(f)));
  }
#endif
}

TEST_CASE("float to bfloat16 rounds to nearest, ties to even, and keeps NaN") {
  CHECK(fp16::float_to_bfloat16(1.0f) == 0x3f80);
  CHECK(fp16::float_to_bfloat16(1.0f + std::ldexp(1.0f, -8)) == 0x3f80);      // tie -> even
  CHECK(fp16::float_to_bfloat16(1.0f + 3 * std::ldexp(1.0f, -8)) == 0x3f82);  // tie -> even (up)
  CHECK(fp16::float_to_bfloat16(1.0f + std::ldexp(1.0f, -8) + std::ldexp(1.0f, -20)) == 0x3f81);
  CHECK(std::isnan(fp16::bfloat16_to_float(fp16::float_to_bfloat16(std::numeric_limits<float>::quiet_NaN()))));
  CHECK(std::isinf(fp16::bfloat16_to_float(fp16::float_to_bfloat16(std::numeric_limits<float>::max()))));
  for (std::uint32_t b = 0; b < 65536; ++b) {
    float f = fp16::bfloat16_to_float(static_cast<std::uint16_t>(b));
    if (!std::isnan(f)) REQUIRE(fp16::float_to_bfloat16(f) == b);
  }
}

TEST_CASE("float16 sums round once per reduction step") {
  // 2048 + 1 is a tie in float16 (spacing 2): stays 2048; 2048 + 3 -> 2052 (tie to even mantissa).
  std::uint16_t a[2] = {fp16::float_to_half(2048.f), fp16::float_to_half(2048.f)}, b[2] = {fp16::float_to_half(1.f),
                                                                               fp16::float_to_half(3.f)}, d[2];
  reduce(d, a, b, 2, DataType::kFloat16, ReduceOp::kSum);
  CHECK(fp16::half_to_float(d[0]) == 2048.f);
  CHECK(fp16::half_to_float(d[1]) == 2052.f);
}

TEST_CASE("scale multiplies every dtype") {
  float f[3] = {1, 2, 3};
  scale(f, 3, DataType::kFloat32, 0.5);
  CHECK(f[2] == 1.5f);
  std::int32_t i[3] = {7, -7, 6};
  scale(i, 3, DataType::kInt32, 0.5);
  CHECK(i[0] == 4);  // 3.5 rounds to even
  CHECK(i[1] == -4);
  CHECK(i[2] == 3);
  std::uint16_t h = fp16::float_to_half(3.0f);
  scale(&h, 1, DataType::kFloat16, 1.0 / 3.0);
  CHECK(fp16::half_to_float(h) == 1.0f);
  std::uint16_t bf = fp16::float_to_bfloat16(10.0f);
  scale(&bf, 1, DataType::kBFloat16, 0.25);
  CHECK(fp16::bfloat16_to_float(bf) == 2.5f);
  double d = 3;
  scale(&d, 1, DataType::kFloat64, 1.0 / 3.0);
  CHECK(d == doctest::Approx(1.0));
}

TEST_CASE("plain reductions refuse average and adasum, adasum refuses integers") {
  float a = 1, b = 2;
  CHECK_THROWS_AS(reduce(&a, &a, &b, 1, DataType::kFloat32, ReduceOp::kAverage), hvd::Error);
  std::int32_t x = 1;
  CHECK_THROWS_AS(dot_norms(&x, &x, 1, DataType::kInt32), hvd::Error);
}

TEST_CASE("reduce_copy stores the result twice, also over one of its inputs") {
  const std::size_t n = 10000;  // several internal blocks
  std::vector<float> a(n), b(n), d(n);
  for (std::size_t i = 0; i < n; ++i) {
    a[i] = static_cast<float>(i);
    b[i] = 1.0f;
  }
  reduce_copy(d.data(), a.data(), a.data(), b.data(), n, DataType::kFloat32, ReduceOp::kSum);
  for (std::size_t i = 0; i < n; ++i) {
    REQUIRE(d[i] == static_cast<float>(i) + 1.0f);
    REQUIRE(a[i] == d[i]);
  }
}
