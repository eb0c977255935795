// One hvd collective as an operation on MXNet's engine: MXNet runs it once its inputs are written and no one
// else reads or writes its outputs; it starts the hvd op (enqueue only) and leaves completion to the
// CompletionQueue, so the Python call returns at once and only reading an output waits.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "completion_queue.h"
#include "hvd/handle.h"
#include "mxnet_library.h"

namespace hvd::mxnet {

// What every op needs: the libmxnet Python loaded and the queue that completes ops (one each per process).
struct Runtime {
  explicit Runtime(const std::string& libmxnet) : mxnet(libmxnet) {}
  MxnetLibrary mxnet;
  CompletionQueue completions;
};

// Pushes `start` on MXNet's engine after `reads` and `writes`; `start` runs on an engine thread and returns the
// hvd op's handle (what it throws is recorded as the op's error).
void push_engine_op(Runtime& runtime, std::function<Handle()> start, const std::vector<NDArrayHandle>& reads,
                    const std::vector<NDArrayHandle>& writes, int priority, const std::string& name);

}  // namespace hvd::mxnet
