// One hvd collective as an operation on MXNet's engine: MXNet runs it once its inputs are written and no one
// else reads or writes its outputs; it describes the arrays, starts the hvd op (enqueue only) and leaves
// completion to the CompletionQueue, so the Python call returns at once and only reading an output waits.
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

// Starts the hvd op on the described inputs and outputs (in the order given to push_engine_op); returns its
// handle. It runs on an engine thread; what it throws is recorded as the op's error.
using StartOp = std::function<Handle(const std::vector<TensorView>& inputs, const std::vector<TensorView>& outputs)>;

// Pushes `start` on MXNet's engine, after the ops that write `inputs` and those that use `outputs` (an array
// may be both: in place). The arrays are held (MxnetLibrary::hold) until the op completes.
void push_engine_op(Runtime& runtime, const std::vector<NDArrayHandle>& inputs,
                    const std::vector<NDArrayHandle>& outputs, StartOp start, int priority, const std::string& name);

}  // namespace hvd::mxnet
