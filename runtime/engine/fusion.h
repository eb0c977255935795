// Fusion planning: single-tensor allreduce and reducescatter responses of the same device kind, dtype, reduce op
// and scale factors are packed into one response up to the threshold, looking past responses that do not match,
// so a stray float16 tensor does not split a run of float32 ones. Pure and deterministic: every rank plans the same
// way.
#pragma once

#include <cstddef>
#include <vector>

#include "runtime/engine/message.h"

namespace hvd::detail {

std::size_t tensor_bytes(const Response& r, std::size_t i);  // bytes of tensor i of a response
std::vector<Response> plan_fusion(std::vector<Response> singles, std::size_t threshold);

}  // namespace hvd::detail
