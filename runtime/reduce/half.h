// float16 (IEEE binary16) and bfloat16 <-> float conversions, round-to-nearest-even, NaN/Inf/subnormals kept.
// Branch-free and inline so that conversion loops vectorize. Never compile this with -ffast-math: the
// subnormal path relies on IEEE addition. Compile loops over them with -fno-trapping-math to vectorize.
#pragma once

#include <bit>
#include <cstdint>

namespace hvd::detail::fp16 {

// Both directions compute every path and select the result (no branches), so loops over arrays vectorize.
inline float half_to_float(std::uint16_t h) {
  constexpr std::uint32_t kShiftedExp = 0x7c00u << 13;
  const std::uint32_t sign = (static_cast<std::uint32_t>(h) & 0x8000u) << 16;
  std::uint32_t o = (static_cast<std::uint32_t>(h) & 0x7fffu) << 13;
  const std::uint32_t exp = kShiftedExp & o;
  o += (127u - 15u) << 23;
  o += exp == kShiftedExp ? (128u - 16u) << 23 : 0u;  // Inf/NaN keep an all-ones exponent
  // Zero/subnormal: renormalize through an IEEE subtraction.
  const float sub = std::bit_cast<float>(o + (1u << 23)) - std::bit_cast<float>(113u << 23);
  const std::uint32_t bits = exp == 0 ? std::bit_cast<std::uint32_t>(sub) : o;
  return std::bit_cast<float>(bits | sign);
}

inline std::uint16_t float_to_half(float value) {
  constexpr std::uint32_t kF32Infty = 255u << 23;
  constexpr std::uint32_t kF16Max = (127u + 16u) << 23;
  constexpr std::uint32_t kDenormMagic = ((127u - 15u) + (23u - 10u) + 1u) << 23;
  std::uint32_t x = std::bit_cast<std::uint32_t>(value);
  const std::uint32_t sign = x & 0x80000000u;
  x ^= sign;
  // Normal result: round to nearest even on the 13 dropped bits.
  const std::uint32_t mant_odd = (x >> 13) & 1u;
  const std::uint32_t normal = (x + ((15u - 127u) << 23) + 0xfffu + mant_odd) >> 13;
  // Subnormal result: the FPU does the rounding when the magic number is added.
  const float t = std::bit_cast<float>(x) + std::bit_cast<float>(kDenormMagic);
  const std::uint32_t subnormal = std::bit_cast<std::uint32_t>(t) - kDenormMagic;
  // NaN stays a (quiet) NaN; overflow goes to Inf.
  const std::uint32_t special = x > kF32Infty ? 0x7e00u : 0x7c00u;
  const std::uint32_t o = x >= kF16Max ? special : x < (113u << 23) ? subnormal : normal;
  return static_cast<std::uint16_t>(o | (sign >> 16));
}

inline float bfloat16_to_float(std::uint16_t b) { return std::bit_cast<float>(static_cast<std::uint32_t>(b) << 16); }

inline std::uint16_t float_to_bfloat16(float value) {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(value);
  const std::uint32_t rounded = (x + 0x7fffu + ((x >> 16) & 1u)) >> 16;
  const std::uint32_t quiet_nan = (x >> 16) | 0x0040u;
  return static_cast<std::uint16_t>((x & 0x7fffffffu) > 0x7f800000u ? quiet_nan : rounded);
}

// The two formats as types, for kernels templated on the element type (runtime/reduce/element_types.h); both are
// stored as std::uint16_t.
struct Half {
  static float to_float(std::uint16_t h) { return half_to_float(h); }
  static std::uint16_t from_float(float value) { return float_to_half(value); }
};
struct BFloat16 {
  static float to_float(std::uint16_t b) { return bfloat16_to_float(b); }
  static std::uint16_t from_float(float value) { return float_to_bfloat16(value); }
};

}  // namespace hvd::detail::fp16
