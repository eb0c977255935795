// Scaling for Average, prescale and postscale, on every dtype. Floating types multiply (float16/bfloat16 through
// float); integers multiply in double and round to nearest, except that Average on integers divides exactly
// (truncating toward zero, like C++ integer division) so that 6/3 is 2, not 1.9999 rounded down.
#pragma once

#include <cstddef>
#include <cstdint>

#include "hvd/types.h"

namespace hvd::detail {

// out[i] = in[i] * factor; `out` may equal `in`. A factor of exactly 1 is a copy (or nothing).
void scale_copy(const void* in, void* out, std::size_t count, DataType dtype, double factor);
// Integer Average: out[i] = in[i] / divisor with C++ integer division; floating types multiply by 1/divisor.
void divide(void* data, std::size_t count, DataType dtype, int divisor);

}  // namespace hvd::detail
