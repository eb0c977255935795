// DistributedOptimizer: per-parameter hooks launch gradient allreduces while backward is still running; step()
// waits for them. Protocol per parameter and step: the hook fires once per backward pass; on the
// backward_passes_per_step-th pass it launches the allreduce of (.grad so far + this pass's gradient). synchronize()
// launches zeros for parameters whose hook never fired (every rank must join every named allreduce), waits, and
// writes the results into .grad. A step whose ops failed is dropped by the next zero_grad() or backward pass, so the
// optimizer outlives a lost peer or an elastic reset (hvd::size() is read at each launch). With Adasum the hook instead
// steps the wrapped optimizer on that one parameter, restores the parameter, and reduces the change; synchronize() adds
// the reduced change to the parameter. On a rank outside options.process_set (Horovod's rule) it registers no hooks
// and reduces nothing: step() is the wrapped optimizer's local step.
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "hvd/torch.h"

namespace hvd::torch {
namespace {

NamedTensors to_list(const ::torch::OrderedDict<std::string, Tensor>& dict) {
  NamedTensors list;
  for (const auto& item : dict) list.emplace_back(item.key(), item.value());
  return list;
}

}  // namespace

struct DistributedOptimizer::Impl {
  struct Slot {
    std::string name;
    Tensor param;
    unsigned hook = 0;
    int passes = 0;        // backward passes since the last synchronize()
    TensorHandle pending;  // the launched allreduce, if any
    bool sparse = false;   // the gradient came sparse (nn.Embedding(sparse=True)): reduced dense, handed back sparse
  };

  ::torch::optim::Optimizer& optimizer;
  DistributedOptimizerOptions options;
  std::vector<Slot> slots;
  std::mutex mutex;  // guards slots and synchronized: hooks may run on autograd's device threads
  bool synchronized = false;
  bool member = true;  // this rank is in options.process_set: without it, no slots, and step() is local

  Impl(::torch::optim::Optimizer& opt, const DistributedOptimizerOptions& o) : optimizer(opt), options(o) {}

  bool adasum() const { return options.op == ReduceOp::kAdasum; }

  AllreduceOptions reduce_options(const Slot& slot) const {
    AllreduceOptions o;
    o.op = options.op;
    o.process_set = options.process_set;
    o.name = (adasum() ? "delta/" : "grad/") + slot.name;
    if (options.op == ReduceOp::kAverage && options.gradient_predivide_factor != 1.0) {
      // Horovod's split average: prescale 1/f, postscale f/size.
      o.op = ReduceOp::kSum;
      o.prescale_factor = 1.0 / options.gradient_predivide_factor;
      o.postscale_factor = options.gradient_predivide_factor / hvd::process_set(options.process_set).size();
    }
    return o;
  }

  void launch(Slot& slot, const Tensor& value) {
    Tensor input = compress(value.contiguous(), options.compression);
    slot.pending = allreduce_async(input, reduce_options(slot));
  }

  // Adasum: the change one local optimizer step makes to `slot.param` given `grad` (zeros when grad is undefined).
  Tensor local_delta(Slot& slot, const Tensor& grad) {
    Tensor data = slot.param.detach();
    if (!grad.defined()) return ::torch::zeros_like(data, ::torch::MemoryFormat::Contiguous);
    Tensor before = data.clone();
    auto& groups = optimizer.param_groups();
    std::vector<std::vector<Tensor>> stashed;
    for (auto& group : groups) {
      stashed.push_back(std::move(group.params()));
      group.params().clear();
      for (const auto& p : stashed.back()) {
        if (p.unsafeGetTensorImpl() == slot.param.unsafeGetTensorImpl()) group.params().push_back(p);
      }
    }
    Tensor saved_grad = slot.param.grad();
    slot.param.mutable_grad() = grad;
    auto restore = [&] {
      slot.param.mutable_grad() = saved_grad;
      for (std::size_t g = 0; g < groups.size(); ++g) groups[g].params() = std::move(stashed[g]);
    };
    try {
      optimizer.step();
    } catch (...) {
      restore();
      throw;
    }
    restore();
    Tensor delta = data - before;
    data.copy_(before);
    return delta;
  }

  // A step whose ops failed (a lost peer; in an elastic job, a reset that shut the runtime down under them) is
  // void: its error reached the caller through whatever call failed first, and after a reset its ops belong to a
  // runtime that is gone. Dropping them lets the next zero_grad() or backward pass start clean, whatever the job's
  // size is now. Caller holds the mutex.
  void drop_failed_step() {
    bool failed = false;
    for (auto& slot : slots) {
      if (!slot.pending.valid() || !slot.pending.poll()) continue;
      try {
        slot.pending.wait();  // done: returns at once, or rethrows the op's error
      } catch (...) {
        failed = true;
      }
    }
    if (!failed) return;
    for (auto& slot : slots) {
      if (slot.pending.valid()) {
        try {
          slot.pending.wait();
        } catch (...) {  // the step is void; its first error was already the caller's
        }
      }
      slot.pending = TensorHandle();
      slot.passes = 0;
    }
    synchronized = false;
  }

  void on_gradient(std::size_t index, const Tensor& grad) {
    ::torch::NoGradGuard no_grad;
    std::lock_guard<std::mutex> lock(mutex);
    Slot& slot = slots[index];
    if (slot.pending.valid()) drop_failed_step();  // a backward pass after a failed step, without zero_grad()
    if (slot.pending.valid()) {
      throw Error(ErrorKind::kUsage,
                  "DistributedOptimizer: the gradient of '" + slot.name + "' was computed more than " +
                      "backward_passes_per_step (" + std::to_string(options.backward_passes_per_step) +
                      ") times before step(); call step() after each backward pass or raise backward_passes_per_step");
    }
    synchronized = false;
    if (++slot.passes < options.backward_passes_per_step) return;
    const Tensor& so_far = slot.param.grad();
    Tensor total = so_far.defined() ? so_far + grad : grad;
    // A sparse gradient travels dense (Horovod's sparse_as_dense): the sum is the same and the op is one allreduce
    // of the parameter's shape on every rank, whatever rows each rank touched.
    slot.sparse = total.is_sparse();
    if (slot.sparse) total = total.to_dense();
    launch(slot, adasum() ? local_delta(slot, total) : total);
  }

  void synchronize() {
    ::torch::NoGradGuard no_grad;
    std::lock_guard<std::mutex> lock(mutex);
    if (synchronized) return;
    for (auto& slot : slots) {
      if (slot.pending.valid()) continue;
      // No gradient (or fewer passes than backward_passes_per_step): still join the named allreduce.
      Tensor grad = slot.passes > 0 ? slot.param.grad() : Tensor();
      if (adasum()) {
        launch(slot, local_delta(slot, grad));
      } else {
        launch(slot, grad.defined() ? grad : ::torch::zeros_like(slot.param, ::torch::MemoryFormat::Contiguous));
      }
    }
    std::exception_ptr first_error;
    for (auto& slot : slots) {
      try {
        Tensor result = decompress(slot.pending.wait(), slot.param.scalar_type(), options.compression);
        Tensor data = slot.param.detach();
        if (adasum()) {
          data.add_(result);
        } else if (slot.sparse) {
          slot.param.mutable_grad() = result.to_sparse();  // the optimizer (SparseAdam) gets what it expects
        } else if (slot.param.grad().defined()) {
          slot.param.mutable_grad().copy_(result);
        } else {
          slot.param.mutable_grad() = result;
        }
      } catch (...) {
        if (!first_error) first_error = std::current_exception();
      }
      slot.pending = TensorHandle();
      slot.passes = 0;
      slot.sparse = false;
    }
    if (first_error) std::rethrow_exception(first_error);
    synchronized = true;
  }
};

DistributedOptimizer::DistributedOptimizer(::torch::optim::Optimizer& optimizer,
                                           const ::torch::OrderedDict<std::string, Tensor>& named_parameters,
                                           const DistributedOptimizerOptions& options)
    : DistributedOptimizer(optimizer, to_list(named_parameters), options) {}

DistributedOptimizer::DistributedOptimizer(::torch::optim::Optimizer& optimizer, const NamedTensors& named_parameters,
                                           const DistributedOptimizerOptions& options)
    : impl_(std::make_unique<Impl>(optimizer, options)) {
  if (!hvd::is_initialized()) throw Error(ErrorKind::kUsage, "DistributedOptimizer: call hvd::init() first");
  if (options.backward_passes_per_step < 1) {
    throw Error(ErrorKind::kUsage, "DistributedOptimizer: backward_passes_per_step must be >= 1, got " +
                                       std::to_string(options.backward_passes_per_step));
  }
  if (options.op != ReduceOp::kAverage && options.op != ReduceOp::kSum && options.op != ReduceOp::kAdasum) {
    throw Error(ErrorKind::kUsage, std::string("DistributedOptimizer: op ") + name_of(options.op) +
                                       " is not supported; use average, "
                                       "sum or adasum");
  }
  if (options.gradient_predivide_factor != 1.0 &&
      (options.op != ReduceOp::kAverage || options.gradient_predivide_factor <= 0.0)) {
    throw Error(ErrorKind::kUsage, "DistributedOptimizer: gradient_predivide_factor " +
                                       std::to_string(options.gradient_predivide_factor) +
                                       " needs op average and a positive factor (op is " + name_of(options.op) + ")");
  }
  impl_->member = hvd::process_set(options.process_set).included();
  std::unordered_map<const void*, std::string> names;
  std::unordered_map<std::string, bool> seen;
  for (const auto& [name, tensor] : named_parameters) {
    if (seen.count(name))
      throw Error(ErrorKind::kUsage, "DistributedOptimizer: duplicate parameter name '" + name + "'");
    seen[name] = true;
    names.emplace(tensor.unsafeGetTensorImpl(), name);
  }
  std::unordered_map<const void*, bool> registered;
  auto& groups = optimizer.param_groups();
  for (std::size_t g = 0; g < groups.size(); ++g) {
    for (std::size_t j = 0; j < groups[g].params().size(); ++j) {
      const Tensor& p = groups[g].params()[j];
      auto it = names.find(p.unsafeGetTensorImpl());
      if (it == names.end()) {
        throw Error(ErrorKind::kUsage,
                    "DistributedOptimizer: parameter " + std::to_string(j) + " of param group " + std::to_string(g) +
                        " (" + ::c10::toString(p.scalar_type()) + ", shape " + ::c10::str(p.sizes()) +
                        ") has no name in named_parameters; pass names for every parameter the optimizer updates");
      }
      if (!impl_->member || !p.requires_grad() || registered.count(p.unsafeGetTensorImpl())) continue;
      registered[p.unsafeGetTensorImpl()] = true;
      impl_->slots.push_back({it->second, p, 0, 0, {}, false});
    }
  }
  Impl* impl = impl_.get();
  for (std::size_t i = 0; i < impl->slots.size(); ++i) {
    impl->slots[i].hook = impl->slots[i].param.register_hook([impl, i](Tensor grad) { impl->on_gradient(i, grad); });
  }
}

DistributedOptimizer::~DistributedOptimizer() {
  for (auto& slot : impl_->slots) {
    slot.param.remove_hook(slot.hook);
    if (slot.pending.valid()) {
      try {
        slot.pending.wait();
      } catch (...) {  // the job is being torn down; the op's error was the caller's to see through step()
      }
    }
  }
}

void DistributedOptimizer::synchronize() { impl_->synchronize(); }

void DistributedOptimizer::step() {
  impl_->synchronize();
  if (!impl_->adasum() || !impl_->member) impl_->optimizer.step();
}

void DistributedOptimizer::zero_grad() {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->drop_failed_step();
  for (const auto& slot : impl_->slots) {
    if (slot.pending.valid()) {
      throw Error(ErrorKind::kUsage,
                  "DistributedOptimizer::zero_grad() called between backward() and step(): the allreduce of '" +
                      slot.name + "' is in flight; call step() or synchronize() first");
    }
  }
  impl_->optimizer.zero_grad();
}

::torch::optim::Optimizer& DistributedOptimizer::optimizer() { return impl_->optimizer; }

}  // namespace hvd::torch
