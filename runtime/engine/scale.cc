#include "runtime/engine/scale.h"

#include <cmath>
#include <cstring>
#include <type_traits>

#include "runtime/reduce/element_types.h"

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

template <class Half>
void scale_16(const std::uint16_t* in, std::uint16_t* out, std::size_t n, double factor) {
  const float f = static_cast<float>(factor);
  for (std::size_t i = 0; i < n; ++i) out[i] = Half::from_float(Half::to_float(in[i]) * f);
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
  if (dtype == DataType::kBool) {
    if (in != out) std::memmove(out, in, n);  // validation refuses scaling bool; keep the data intact anyway
    return;
  }
  visit_element_type(dtype, [&]<class T>(ElementTag<T>) {
    if constexpr (is_half_float_v<T>) {
      scale_16<T>(static_cast<const std::uint16_t*>(in), static_cast<std::uint16_t*>(out), n, factor);
    } else if constexpr (std::is_integral_v<T>) {
      scale_int(static_cast<const T*>(in), static_cast<T*>(out), n, factor);
    } else {
      scale_float(static_cast<const T*>(in), static_cast<T*>(out), n, factor);
    }
  });
}

void divide(void* data, std::size_t n, DataType dtype, int divisor) {
  if (divisor == 1 || n == 0 || dtype == DataType::kBool) return;
  visit_element_type(dtype, [&]<class T>(ElementTag<T>) {
    if constexpr (std::is_integral_v<T>) {
      divide_int(static_cast<T*>(data), n, divisor);
    } else {
      scale_copy(data, data, n, dtype, 1.0 / divisor);
    }
  });
}

}  // namespace hvd::detail
