#include "runtime/engine/scale.h"

#include <cmath>
#include <cstring>

#include "runtime/reduce/half.h"

namespace hvd::detail {

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
      return scale_16<fp16::half_to_float, fp16::float_to_half>(static_cast<const std::uint16_t*>(in),
                                                                static_cast<std::uint16_t*>(out), n, factor);
    case DataType::kBFloat16:
      return scale_16<fp16::bfloat16_to_float, fp16::float_to_bfloat16>(static_cast<const std::uint16_t*>(in),
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
