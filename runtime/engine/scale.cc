#include "runtime/engine/scale.h"

#include <cmath>
#include <cstring>

namespace hvd::detail {

float half_to_float(std::uint16_t h) {
  std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000) << 16;
  std::uint32_t exp = (h >> 10) & 0x1f;
  std::uint32_t mant = h & 0x3ff;
  std::uint32_t bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {  // subnormal: normalise
      exp = 127 - 15 + 1;
      while ((mant & 0x400) == 0) {
        mant <<= 1;
        --exp;
      }
      mant &= 0x3ff;
      bits = sign | (exp << 23) | (mant << 13);
    }
  } else if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

std::uint16_t float_to_half(float f) {
  std::uint32_t x;
  std::memcpy(&x, &f, sizeof x);
  std::uint16_t sign = static_cast<std::uint16_t>((x >> 16) & 0x8000);
  std::uint32_t abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u) return sign | (abs > 0x7f800000u ? 0x7e00 : 0x7c00);  // NaN, Inf
  if (abs >= 0x477ff000u) return sign | 0x7c00;                                 // overflows to Inf
  if (abs < 0x38800000u) {                                                      // subnormal or zero
    if (abs < 0x33000000u) return sign;
    std::uint32_t exp = abs >> 23;
    std::uint32_t mant = (abs & 0x7fffff) | 0x800000;
    std::uint32_t shift = 126 - exp;  // 14 + (112 - exp) ... brings the value to units of 2^-24
    std::uint32_t half = mant >> shift;
    std::uint32_t rem = mant & ((1u << shift) - 1);
    std::uint32_t mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1))) ++half;
    return sign | static_cast<std::uint16_t>(half);
  }
  std::uint32_t rounded = abs + 0xfff + ((abs >> 13) & 1);  // round to nearest even at bit 13
  return sign | static_cast<std::uint16_t>((rounded - (112u << 23)) >> 13);
}

float bfloat16_to_float(std::uint16_t b) {
  std::uint32_t bits = static_cast<std::uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

std::uint16_t float_to_bfloat16(float f) {
  std::uint32_t x;
  std::memcpy(&x, &f, sizeof x);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((x >> 16) | 0x40);  // quiet NaN
  x += 0x7fff + ((x >> 16) & 1);
  return static_cast<std::uint16_t>(x >> 16);
}

namespace {

template <typename T>
void scale_int(const T* in, T* out, std::size_t n, double factor) {
  for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<T>(std::nearbyint(static_cast<double>(in[i]) * factor));
}

template <typename T>
void scale_float(const T* in, T* out, std::size_t n, double factor) {
  const T f = static_cast<T>(factor);
  for (std::size_t i = 0; i < n; ++i) out[i] = in[i] * f;
}

template <float (*ToFloat)(std::uint16_t), std::uint16_t (*FromFloat)(float)>
void scale_16(const std::uint16_t* in, std::uint16_t* out, std::size_t n, double factor) {
  const float f = static_cast<float>(factor);
  for (std::size_t i = 0; i < n; ++i) out[i] = FromFloat(ToFloat(in[i]) * f);
}

template <typename T>
void divide_int(T* data, std::size_t n, int divisor) {
  for (std::size_t i = 0; i < n; ++i) data[i] = static_cast<T>(data[i] / static_cast<T>(divisor));
}

}  // namespace

void scale_copy(const void* in, void* out, std::size_t n, DataType dtype, double factor) {
  if (n == 0) return;
  if (factor == 1.0) {
    if (in != out) std::memmove(out, in, n * size_of(dtype));
    return;
  }
  switch (dtype) {
    case DataType::kUInt8:
      return scale_int(static_cast<const std::uint8_t*>(in), static_cast<std::uint8_t*>(out), n, factor);
    case DataType::kInt8:
      return scale_int(static_cast<const std::int8_t*>(in), static_cast<std::int8_t*>(out), n, factor);
    case DataType::kUInt16:
      return scale_int(static_cast<const std::uint16_t*>(in), static_cast<std::uint16_t*>(out), n, factor);
    case DataType::kInt16:
      return scale_int(static_cast<const std::int16_t*>(in), static_cast<std::int16_t*>(out), n, factor);
    case DataType::kInt32:
      return scale_int(static_cast<const std::int32_t*>(in), static_cast<std::int32_t*>(out), n, factor);
    case DataType::kInt64:
      return scale_int(static_cast<const std::int64_t*>(in), static_cast<std::int64_t*>(out), n, factor);
    case DataType::kFloat32:
      return scale_float(static_cast<const float*>(in), static_cast<float*>(out), n, factor);
    case DataType::kFloat64:
      return scale_float(static_cast<const double*>(in), static_cast<double*>(out), n, factor);
    case DataType::kFloat16:
      return scale_16<half_to_float, float_to_half>(static_cast<const std::uint16_t*>(in),
                                                    static_cast<std::uint16_t*>(out), n, factor);
    case DataType::kBFloat16:
      return scale_16<bfloat16_to_float, float_to_bfloat16>(static_cast<const std::uint16_t*>(in),
                                                            static_cast<std::uint16_t*>(out), n, factor);
    case DataType::kBool:
      if (in != out) std::memmove(out, in, n);  // validation refuses scaling bool; keep the data intact anyway
      return;
  }
}

void divide(void* data, std::size_t n, DataType dtype, int divisor) {
  if (divisor == 1 || n == 0) return;
  switch (dtype) {
    case DataType::kUInt8:
      return divide_int(static_cast<std::uint8_t*>(data), n, divisor);
    case DataType::kInt8:
      return divide_int(static_cast<std::int8_t*>(data), n, divisor);
    case DataType::kUInt16:
      return divide_int(static_cast<std::uint16_t*>(data), n, divisor);
    case DataType::kInt16:
      return divide_int(static_cast<std::int16_t*>(data), n, divisor);
    case DataType::kInt32:
      return divide_int(static_cast<std::int32_t*>(data), n, divisor);
    case DataType::kInt64:
      return divide_int(static_cast<std::int64_t*>(data), n, divisor);
    case DataType::kBool:
      return;
    default:
      return scale_copy(data, data, n, dtype, 1.0 / divisor);
  }
}

}  // namespace hvd::detail
