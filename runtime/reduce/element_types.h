// A DataType known only at run time, to a kernel templated on its element type: visit_element_type(dtype, f)
// calls f(ElementTag<T>{}) once, T the C++ type of the dtype's elements: the integers, float and double as
// themselves, fp16::Half and fp16::BFloat16 for the 16-bit floats (stored as std::uint16_t). Bool has no arithmetic
// here: f is not called for it (the caller handles bool first).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "hvd/types.h"
#include "runtime/reduce/half.h"

namespace hvd::detail {

template <class T>
struct ElementTag {};

template <class T>
inline constexpr bool is_half_float_v = std::is_same_v<T, fp16::Half> || std::is_same_v<T, fp16::BFloat16>;

namespace element_types {

template <class... Ts>
struct List {};

// In DataType's order; kBool, the last, has no entry.
using Arithmetic = List<std::uint8_t, std::int8_t, std::uint16_t, std::int16_t, std::int32_t, std::int64_t, fp16::Half,
                        fp16::BFloat16, float, double>;
static_assert(static_cast<int>(DataType::kBool) == 10, "one Arithmetic entry per DataType before kBool, in order");

template <class F, class... Ts>
void visit(std::size_t index, F& f, List<Ts...>) {
  std::size_t i = 0;
  (void)((index == i++ ? (f(ElementTag<Ts>{}), true) : false) || ...);
}

}  // namespace element_types

template <class F>
void visit_element_type(DataType dtype, F&& f) {
  element_types::visit(static_cast<std::size_t>(dtype), f, element_types::Arithmetic{});
}

}  // namespace hvd::detail
