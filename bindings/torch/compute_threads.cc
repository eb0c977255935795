// Tells libhvd, as soon as hvd_torch is loaded, how many threads torch computes with (its intra-op pool), so that
// init() places the ranks of a host knowing a training process keeps those threads and the engine's busy at once
// (HVD_CPU_BIND=auto, runtime/comm/shm/cpu_binding.h). Asked at init(), so torch::set_num_threads() before it counts.
#include <ATen/Parallel.h>

#include "hvd/hvd.h"

namespace hvd::torch {
namespace {

int torch_compute_threads() { return at::get_num_threads(); }

const bool registered = [] {
  hvd::set_compute_threads_query(&torch_compute_threads);
  return true;
}();

}  // namespace
}  // namespace hvd::torch
