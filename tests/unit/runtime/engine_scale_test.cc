#include <doctest/doctest.h>

#include <cmath>

#include "runtime/engine/scale.h"
#include "runtime/reduce/half.h"

using namespace hvd;
using namespace hvd::detail;
using namespace hvd::detail::fp16;  // the conversions scale.cc reduces float16/bfloat16 through

TEST_CASE("float16 conversions round to nearest even and keep specials") {
  CHECK(half_to_float(float_to_half(1.0f)) == 1.0f);
  CHECK(half_to_float(float_to_half(65504.0f)) == 65504.0f);
  CHECK(std::isinf(half_to_float(float_to_half(70000.0f))));
  CHECK(std::isnan(half_to_float(float_to_half(NAN))));
  CHECK(half_to_float(float_to_half(5.9604645e-8f)) == 5.9604645e-8f);  // smallest subnormal
  CHECK(float_to_half(1.0f + 1.0f / 2048) == 0x3c00);                   // tie goes to even
  CHECK(float_to_half(1.0f + 3.0f / 2048) == 0x3c02);
  for (int i = -2000; i <= 2000; ++i) CHECK(half_to_float(float_to_half(static_cast<float>(i))) == i);
}

TEST_CASE("bfloat16 conversions") {
  CHECK(bfloat16_to_float(float_to_bfloat16(1.0f)) == 1.0f);
  CHECK(bfloat16_to_float(float_to_bfloat16(256.0f)) == 256.0f);
  CHECK(float_to_bfloat16(1.0f + 1.0f / 256) == 0x3f80);  // tie to even
  CHECK(std::isnan(bfloat16_to_float(float_to_bfloat16(NAN))));
}

TEST_CASE("integer average divides exactly; scaling rounds") {
  std::int32_t v[3] = {6, 7, -7};
  divide(v, 3, DataType::kInt32, 3);
  CHECK(v[0] == 2);
  CHECK(v[1] == 2);
  CHECK(v[2] == -2);
  std::int64_t w[2] = {3, 5};
  scale_copy(w, w, 2, DataType::kInt64, 0.5);
  CHECK(w[0] == 2);  // 1.5 rounds to even
  CHECK(w[1] == 2);
  float f[2] = {1, 2}, g[2];
  scale_copy(f, g, 2, DataType::kFloat32, 0.25);
  CHECK(g[1] == 0.5f);
}
