// The function MXNet's engine calls for an hvd op, and its parameter's lifetime (MXNet deletes it through
// delete_op when it drops the operation).
#include "engine_op.h"

#include <utility>

namespace hvd::mxnet {
namespace {

struct EngineOp {
  std::function<Handle()> start;
  CompletionQueue* completions;
};

void run_op(void* /*run_context*/, void* on_complete, void* param) {
  auto* op = static_cast<EngineOp*>(param);
  // MXNet's CallbackOnComplete lives on the calling frame: copy it for the completion thread.
  const CallbackOnComplete done = *static_cast<const CallbackOnComplete*>(on_complete);
  Handle handle;
  try {
    handle = op->start();
  } catch (...) {
    op->completions->fail(done, std::current_exception());
    return;
  }
  op->completions->add(std::move(handle), done);
}

void delete_op(void* param) { delete static_cast<EngineOp*>(param); }

}  // namespace

void push_engine_op(Runtime& runtime, std::function<Handle()> start, const std::vector<NDArrayHandle>& reads,
                    const std::vector<NDArrayHandle>& writes, int priority, const std::string& name) {
  auto* op = new EngineOp{std::move(start), &runtime.completions};
  runtime.mxnet.push(&run_op, op, &delete_op, reads, writes, priority, name.c_str());
}

}  // namespace hvd::mxnet
