// Element access for the C++ test workers: any hvd::DataType read and written through double, with float16 and
// bfloat16 converted on the host (round to nearest even). Independent of libhvd's own conversions, so that a
// reference computed with it checks them.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "hvd/types.h"

namespace hvd::test {

using hvd::DataType;

// ---- float16 / bfloat16 on the host (round to nearest even) ----
inline float half_to_float(std::uint16_t h) {
  std::uint32_t sign = (h & 0x8000u) << 16, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  if (exp == 0) return (sign ? -1.f : 1.f) * std::ldexp(static_cast<float>(mant), -24);
  if (exp == 31) return mant ? NAN : (sign ? -INFINITY : INFINITY);
  std::uint32_t bits = sign | ((exp + 112) << 23) | (mant << 13);
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}
inline std::uint16_t float_to_half(float f) {
  std::uint32_t x;
  std::memcpy(&x, &f, 4);
  std::uint16_t sign = (x >> 16) & 0x8000;
  std::uint32_t a = x & 0x7fffffff;
  if (a >= 0x477ff000u) return sign | 0x7c00;
  if (a < 0x38800000u) return sign | static_cast<std::uint16_t>(std::nearbyint(std::ldexp(std::fabs(f), 24)));
  a += 0xfff + ((a >> 13) & 1);
  return sign | static_cast<std::uint16_t>((a - (112u << 23)) >> 13);
}
inline float bf16_to_float(std::uint16_t b) {
  std::uint32_t bits = static_cast<std::uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}
inline std::uint16_t float_to_bf16(float f) {
  std::uint32_t x;
  std::memcpy(&x, &f, 4);
  x += 0x7fff + ((x >> 16) & 1);
  return static_cast<std::uint16_t>(x >> 16);
}

// ---- typed access through double ----
inline void put(void* buf, DataType dt, std::size_t i, double v) {
  switch (dt) {
    case DataType::kUInt8:
      static_cast<std::uint8_t*>(buf)[i] = static_cast<std::uint8_t>(v);
      break;
    case DataType::kInt8:
      static_cast<std::int8_t*>(buf)[i] = static_cast<std::int8_t>(v);
      break;
    case DataType::kUInt16:
      static_cast<std::uint16_t*>(buf)[i] = static_cast<std::uint16_t>(v);
      break;
    case DataType::kInt16:
      static_cast<std::int16_t*>(buf)[i] = static_cast<std::int16_t>(v);
      break;
    case DataType::kInt32:
      static_cast<std::int32_t*>(buf)[i] = static_cast<std::int32_t>(v);
      break;
    case DataType::kInt64:
      static_cast<std::int64_t*>(buf)[i] = static_cast<std::int64_t>(v);
      break;
    case DataType::kFloat16:
      static_cast<std::uint16_t*>(buf)[i] = float_to_half(static_cast<float>(v));
      break;
    case DataType::kBFloat16:
      static_cast<std::uint16_t*>(buf)[i] = float_to_bf16(static_cast<float>(v));
      break;
    case DataType::kFloat32:
      static_cast<float*>(buf)[i] = static_cast<float>(v);
      break;
    case DataType::kFloat64:
      static_cast<double*>(buf)[i] = v;
      break;
    case DataType::kBool:
      static_cast<std::uint8_t*>(buf)[i] = v != 0;
      break;
  }
}
inline double get(const void* buf, DataType dt, std::size_t i) {
  switch (dt) {
    case DataType::kUInt8:
      return static_cast<const std::uint8_t*>(buf)[i];
    case DataType::kInt8:
      return static_cast<const std::int8_t*>(buf)[i];
    case DataType::kUInt16:
      return static_cast<const std::uint16_t*>(buf)[i];
    case DataType::kInt16:
      return static_cast<const std::int16_t*>(buf)[i];
    case DataType::kInt32:
      return static_cast<const std::int32_t*>(buf)[i];
    case DataType::kInt64:
      return static_cast<double>(static_cast<const std::int64_t*>(buf)[i]);
    case DataType::kFloat16:
      return half_to_float(static_cast<const std::uint16_t*>(buf)[i]);
    case DataType::kBFloat16:
      return bf16_to_float(static_cast<const std::uint16_t*>(buf)[i]);
    case DataType::kFloat32:
      return static_cast<const float*>(buf)[i];
    case DataType::kFloat64:
      return static_cast<const double*>(buf)[i];
    case DataType::kBool:
      return static_cast<const std::uint8_t*>(buf)[i] != 0;
  }
  return 0;
}

inline bool is_float(DataType d) {
  return d == DataType::kFloat16 || d == DataType::kBFloat16 || d == DataType::kFloat32 || d == DataType::kFloat64;
}
inline bool is_unsigned(DataType d) { return d == DataType::kUInt8 || d == DataType::kUInt16; }

}  // namespace hvd::test
