// Timeline at run time (Horovod's hvd.start_timeline / stop_timeline): every rank records its negotiation and
// op phases as a Chrome trace, rank 0 to `file`, rank r to "<stem>.<r><ext>" (docs/cpp-api.md "Timeline"). Not
// collective: each rank starts and stops its own; HOROVOD_TIMELINE starts one at init().
#pragma once

#include <string>

#include "hvd/export.h"

namespace hvd {

// Replaces a running timeline. Throws hvd::Error when hvd is not initialized or the file cannot be written.
HVD_API void start_timeline(const std::string& file, bool mark_cycles = false);
// The file is complete JSON afterwards. No-op without a timeline.
HVD_API void stop_timeline();

}  // namespace hvd
