// hvd's exception type. Messages say what failed, where (rank, host, tensor, op) and what to do, e.g.
// "allreduce 'grad/fc1.weight': rank 3 (h2) sent float16, ranks 0-2 sent float32; cast before the call".
#pragma once

#include <stdexcept>

#include "hvd/export.h"

namespace hvd {

class HVD_API Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace hvd
