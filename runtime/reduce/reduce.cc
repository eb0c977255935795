#include "runtime/reduce/reduce.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include "hvd/error.h"
#include "runtime/reduce/element_types.h"

namespace hvd::detail {
namespace {

// Unsigned arithmetic wide enough that integer promotion never makes signed overflow (UB) out of a wrap.
template <class T>
using Wrap = std::conditional_t<(sizeof(T) > 4), std::uint64_t, std::uint32_t>;

struct Sum {
  template <class T>
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      return static_cast<T>(static_cast<Wrap<T>>(a) + static_cast<Wrap<T>>(b));
    } else {
      return a + b;
    }
  }
};
struct Product {
  template <class T>
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      return static_cast<T>(static_cast<Wrap<T>>(a) * static_cast<Wrap<T>>(b));
    } else {
      return a * b;
    }
  }
};
struct Min {
  template <class T>
  T operator()(T a, T b) const {
    return b < a ? b : a;
  }
};
struct Max {
  template <class T>
  T operator()(T a, T b) const {
    return a < b ? b : a;
  }
};

template <class T, class Op>
void apply(void* dst, const void* a, const void* b, std::size_t n, Op op) {
  auto* d = static_cast<T*>(dst);
  auto* x = static_cast<const T*>(a);
  auto* y = static_cast<const T*>(b);
  for (std::size_t i = 0; i < n; ++i) d[i] = op(x[i], y[i]);
}

// float16/bfloat16: widen a block to float, reduce, narrow once (one rounding per reduction step).
constexpr std::size_t kBlock = 256;

template <class Half, class Op>
void apply_half(void* dst, const void* a, const void* b, std::size_t n, Op op) {
  auto* d = static_cast<std::uint16_t*>(dst);
  auto* x = static_cast<const std::uint16_t*>(a);
  auto* y = static_cast<const std::uint16_t*>(b);
  float fx[kBlock], fy[kBlock];
  for (std::size_t base = 0; base < n; base += kBlock) {
    std::size_t m = std::min(kBlock, n - base);
    for (std::size_t i = 0; i < m; ++i) fx[i] = Half::to_float(x[base + i]);
    for (std::size_t i = 0; i < m; ++i) fy[i] = Half::to_float(y[base + i]);
    for (std::size_t i = 0; i < m; ++i) d[base + i] = Half::from_float(op(fx[i], fy[i]));
  }
}

void apply_bool(void* dst, const void* a, const void* b, std::size_t n, bool is_and) {
  auto* d = static_cast<std::uint8_t*>(dst);
  auto* x = static_cast<const std::uint8_t*>(a);
  auto* y = static_cast<const std::uint8_t*>(b);
  if (is_and) {
    for (std::size_t i = 0; i < n; ++i) d[i] = static_cast<std::uint8_t>((x[i] != 0) & (y[i] != 0));
  } else {
    for (std::size_t i = 0; i < n; ++i) d[i] = static_cast<std::uint8_t>((x[i] != 0) | (y[i] != 0));
  }
}

template <class Op>
void dispatch(void* dst, const void* a, const void* b, std::size_t n, DataType dtype, Op op) {
  visit_element_type(dtype, [&]<class T>(ElementTag<T>) {
    if constexpr (is_half_float_v<T>) {
      apply_half<T>(dst, a, b, n, op);
    } else {
      apply<T>(dst, a, b, n, op);
    }
  });
}

template <class T>
void scale_as(void* data, std::size_t n, double factor) {
  auto* d = static_cast<T*>(data);
  if constexpr (std::is_same_v<T, float>) {
    const float f = static_cast<float>(factor);
    for (std::size_t i = 0; i < n; ++i) d[i] *= f;
  } else if constexpr (std::is_floating_point_v<T>) {
    for (std::size_t i = 0; i < n; ++i) d[i] *= factor;
  } else {
    for (std::size_t i = 0; i < n; ++i) d[i] = static_cast<T>(std::nearbyint(static_cast<double>(d[i]) * factor));
  }
}

template <class Half>
void scale_half(void* data, std::size_t n, double factor) {
  auto* d = static_cast<std::uint16_t*>(data);
  const float f = static_cast<float>(factor);
  for (std::size_t i = 0; i < n; ++i) d[i] = Half::from_float(Half::to_float(d[i]) * f);
}

// Adasum loops read any floating type as double: f(load, store), load(p, i) the element i of p as double, store(p,
// i, v) v into it.
template <class F>
void for_floating(DataType dtype, const char* what, F&& f) {
  if (!is_floating(dtype)) {
    throw Error(ErrorKind::kUsage, std::string(what) + ": Adasum needs a floating-point tensor, got " + name_of(dtype) +
                                       "; cast to float32 first");
  }
  visit_element_type(dtype, [&]<class T>(ElementTag<T>) {
    if constexpr (is_half_float_v<T>) {
      f([](const void* p,
           std::size_t i) { return static_cast<double>(T::to_float(static_cast<const std::uint16_t*>(p)[i])); },
        [](void* p, std::size_t i, double v) {
          static_cast<std::uint16_t*>(p)[i] = T::from_float(static_cast<float>(v));
        });
    } else if constexpr (std::is_floating_point_v<T>) {
      f([](const void* p, std::size_t i) { return static_cast<double>(static_cast<const T*>(p)[i]); },
        [](void* p, std::size_t i, double v) { static_cast<T*>(p)[i] = static_cast<T>(v); });
    }
  });
}

}  // namespace

bool is_floating(DataType dtype) {
  return dtype == DataType::kFloat16 || dtype == DataType::kBFloat16 || dtype == DataType::kFloat32 ||
         dtype == DataType::kFloat64;
}

void reduce(void* dst, const void* a, const void* b, std::size_t count, DataType dtype, ReduceOp op) {
  if (dtype == DataType::kBool) {
    if (op == ReduceOp::kAverage || op == ReduceOp::kAdasum) {
      throw Error(ErrorKind::kInternal,
                  std::string("reduce: op ") + name_of(op) + " is not a plain reduction for bool");
    }
    return apply_bool(dst, a, b, count, op == ReduceOp::kProduct || op == ReduceOp::kMin);
  }
  switch (op) {
    case ReduceOp::kSum:
      return dispatch(dst, a, b, count, dtype, Sum{});
    case ReduceOp::kMin:
      return dispatch(dst, a, b, count, dtype, Min{});
    case ReduceOp::kMax:
      return dispatch(dst, a, b, count, dtype, Max{});
    case ReduceOp::kProduct:
      return dispatch(dst, a, b, count, dtype, Product{});
    default:
      throw Error(ErrorKind::kInternal,
                  std::string("reduce: op ") + name_of(op) +
                      " is not a plain reduction (the engine scales for average; Adasum has its own collective)");
  }
}

void reduce_copy(void* dst, void* copy, const void* a, const void* b, std::size_t count, DataType dtype, ReduceOp op) {
  const std::size_t es = size_of(dtype);
  constexpr std::size_t kCopyBlockBytes = 16u << 10;  // well inside L1
  const std::size_t block = kCopyBlockBytes / es;
  auto* d = static_cast<std::byte*>(dst);
  auto* c = static_cast<std::byte*>(copy);
  auto* x = static_cast<const std::byte*>(a);
  auto* y = static_cast<const std::byte*>(b);
  for (std::size_t i = 0; i < count; i += block) {
    const std::size_t m = std::min(block, count - i);
    reduce(d + i * es, x + i * es, y + i * es, m, dtype, op);
    std::memcpy(c + i * es, d + i * es, m * es);
  }
}

void scale(void* data, std::size_t count, DataType dtype, double factor) {
  if (dtype == DataType::kBool) {
    if (factor == 0.0) std::fill_n(static_cast<std::uint8_t*>(data), count, std::uint8_t{0});
    return;
  }
  visit_element_type(dtype, [&]<class T>(ElementTag<T>) {
    if constexpr (is_half_float_v<T>) {
      scale_half<T>(data, count, factor);
    } else {
      scale_as<T>(data, count, factor);
    }
  });
}

DotNorms dot_norms(const void* a, const void* b, std::size_t count, DataType dtype) {
  DotNorms r;
  for_floating(dtype, "adasum", [&](auto load, auto) {
    for (std::size_t i = 0; i < count; ++i) {
      double x = load(a, i), y = load(b, i);
      r.dot += x * y;
      r.a_sq += x * x;
      r.b_sq += y * y;
    }
  });
  return r;
}

void combine(void* dst, const void* a, double ca, const void* b, double cb, std::size_t count, DataType dtype) {
  for_floating(dtype, "adasum", [&](auto load, auto store) {
    for (std::size_t i = 0; i < count; ++i) store(dst, i, ca * load(a, i) + cb * load(b, i));
  });
}

}  // namespace hvd::detail
