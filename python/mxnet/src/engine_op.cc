// The function MXNet's engine calls for an hvd op, and its parameter's lifetime (MXNet deletes it through
// delete_op when it drops the operation; the held arrays go back when the op completes).
#include "engine_op.h"

#include <memory>
#include <utility>

namespace hvd::mxnet {
namespace {

struct HeldArrays {
  const MxnetLibrary* mxnet;
  std::vector<NDArrayHandle> inputs, outputs;
  ~HeldArrays() {
    for (auto* a : inputs) mxnet->release(a);
    for (auto* a : outputs) mxnet->release(a);
  }
};

struct EngineOp {
  StartOp start;
  std::shared_ptr<HeldArrays> arrays;  // shared with the completion, which drops it after on_complete
  CompletionQueue* completions;
};

std::vector<TensorView> describe(const MxnetLibrary& mxnet, const std::vector<NDArrayHandle>& arrays) {
  std::vector<TensorView> views;
  for (auto* a : arrays) views.push_back(mxnet.describe(a));
  return views;
}

void run_op(void* /*run_context*/, void* on_complete, void* param) {
  auto* op = static_cast<EngineOp*>(param);
  // MXNet's CallbackOnComplete lives on the calling frame: copy it for the completion thread.
  const CallbackOnComplete done = *static_cast<const CallbackOnComplete*>(on_complete);
  auto arrays = std::move(op->arrays);
  Handle handle;
  try {
    handle = op->start(describe(*arrays->mxnet, arrays->inputs), describe(*arrays->mxnet, arrays->outputs));
  } catch (...) {
    op->completions->fail(done, std::current_exception());
    return;
  }
  op->completions->add(handle, done, [arrays = std::move(arrays)]() mutable { arrays.reset(); });
}

void delete_op(void* param) { delete static_cast<EngineOp*>(param); }

}  // namespace

void push_engine_op(Runtime& runtime, const std::vector<NDArrayHandle>& inputs,
                    const std::vector<NDArrayHandle>& outputs, StartOp start, int priority, const std::string& name) {
  auto arrays = std::make_shared<HeldArrays>(HeldArrays{&runtime.mxnet, {}, {}});
  for (auto* a : inputs) arrays->inputs.push_back(runtime.mxnet.hold(a));
  for (auto* a : outputs) arrays->outputs.push_back(runtime.mxnet.hold(a));
  auto* op = new EngineOp{std::move(start), std::move(arrays), &runtime.completions};
  runtime.mxnet.push(&run_op, op, &delete_op, inputs, outputs, priority, name.c_str());
}

}  // namespace hvd::mxnet
