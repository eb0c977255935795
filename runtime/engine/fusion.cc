#include "runtime/engine/fusion.h"

namespace hvd::detail {
namespace {

bool fusable(const Response& r) {
  return is_reduction(r.type) && r.error.empty() && r.reduce_op != ReduceOp::kAdasum && r.names.size() == 1;
}

bool compatible(const Response& a, const Response& b) {
  return a.type == b.type && a.device == b.device && a.dtype == b.dtype && a.reduce_op == b.reduce_op &&
         a.prescale == b.prescale && a.postscale == b.postscale;
}

}  // namespace

std::size_t tensor_bytes(const Response& r, std::size_t i) {
  return static_cast<std::size_t>(num_elements(r.shapes[i])) * size_of(r.dtype);
}

std::vector<Response> plan_fusion(std::vector<Response> singles, std::size_t threshold) {
  std::vector<Response> out;
  out.reserve(singles.size());
  std::vector<bool> used(singles.size(), false);
  for (std::size_t i = 0; i < singles.size(); ++i) {
    if (used[i]) continue;
    used[i] = true;
    Response fused = std::move(singles[i]);
    if (threshold == 0 || !fusable(fused)) {
      out.push_back(std::move(fused));
      continue;
    }
    std::size_t bytes = tensor_bytes(fused, 0);
    for (std::size_t j = i + 1; j < singles.size() && bytes < threshold; ++j) {
      if (used[j] || !fusable(singles[j]) || !compatible(fused, singles[j])) continue;
      std::size_t b = tensor_bytes(singles[j], 0);
      if (bytes + b > threshold) continue;
      bytes += b;
      used[j] = true;
      fused.names.push_back(std::move(singles[j].names[0]));
      fused.shapes.push_back(std::move(singles[j].shapes[0]));
    }
    out.push_back(std::move(fused));
  }
  return out;
}

}  // namespace hvd::detail
