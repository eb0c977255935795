// Helpers for the hvd_torch unit tests. The tests hold for any number of ranks: ctest runs them as a 1-rank job,
// tests/integration/torch_unit_np2.sh runs the same binary under `hvdrun -np 2` so that ranks really differ.
// Include it first in every test file: LibTorch pulls in glog, whose CHECK macros would shadow doctest's.
#pragma once

#include <torch/autograd.h>
#include <torch/nn/modules/linear.h>
#include <torch/optim.h>

#include <cstdlib>
#include <string>

#include "hvd/torch.h"

#undef CHECK
#undef CHECK_EQ
#undef CHECK_NE
#undef CHECK_LT
#undef CHECK_LE
#undef CHECK_GT
#undef CHECK_GE
#include <doctest/doctest.h>

namespace hvd::torch::testing {

inline void ensure_init() {
  if (!hvd::is_initialized()) {
    hvd::init();
    std::atexit([] { hvd::shutdown(); });
  }
}

// Options of a collective with only the name set (aggregates with std::function members warn under -Wextra
// when designated initializers leave them out).
template <class Options>
Options named(const std::string& name) {
  Options options;
  options.name = name;
  return options;
}

// True when `t` holds the same values on every rank (compared with root 0's copy).
inline bool same_on_all_ranks(const Tensor& t, const std::string& name) {
  Tensor root = broadcast(t.contiguous(), {.root = 0, .name = "same_on_all_ranks/" + name});
  Tensor equal = ::torch::tensor({root.equal(t.contiguous()) ? 1.0 : 0.0}, ::torch::kFloat64);
  allreduce_(equal, {.op = ReduceOp::kMin, .name = "same_on_all_ranks/" + name + "/vote"});
  return equal.item<double>() == 1.0;
}

}  // namespace hvd::torch::testing
