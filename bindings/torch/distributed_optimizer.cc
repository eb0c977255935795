// DistributedOptimizer: per-parameter hooks launch gradient allreduces while backward is still running; step()
// waits for them. Protocol per parameter and step: the hook runs after autograd accumulated the parameter's gradient
// into .grad, once per backward pass; on the backward_passes_per_step-th pass it launches the allreduce of .grad in
// place (as Horovod's allreduce_async_ of p.grad), so a step allocates and copies nothing of its own. synchronize()
// launches zeros for parameters whose hook never fired (every rank must join every named allreduce) and waits; only
// fp16 compression and sparse gradients travel out of place and are written back. A step whose ops failed is
// dropped by the next zero_grad() or backward pass, so the optimizer outlives a lost peer or an elastic reset
// (hvd::size() is read at each launch). With Adasum the hook instead steps the wrapped optimizer on that one
// parameter, restores the parameter, and reduces the change; synchronize() adds the reduced change to the parameter. On a rank outside
// options.process_set (Horovod's rule) it registers no hooks and reduces nothing: step() is the wrapped optimizer's
// local step.
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/function_hook.h>
#include <torch/csrc/autograd/variable.h>

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
    // The node that accumulates the parameter's gradient, held as Horovod holds it: autograd keeps only a weak
    // reference and would make a new node (without our hook) for each graph. `hook` is our hook's key on it.
    std::shared_ptr<::torch::autograd::Node> accumulator;
    std::uintptr_t hook = 0;
    int passes = 0;          // backward passes since the last synchronize()
    TensorHandle pending;    // the launched allreduce, if any
    bool in_place = false;   // pending reduces .grad itself: nothing to write back
    bool sparse = false;     // the gradient came sparse (nn.Embedding(sparse=True)): reduced dense, handed back sparse
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
    slot.in_place = false;
  }

  // The step's gradient as AccumulateGrad left it in .grad: reduced where it lies when it can be.
  void launch_gradient(Slot& slot) {
    Tensor& grad = slot.param.mutable_grad();
    slot.sparse = grad.is_sparse();
    if (adasum()) return launch(slot, local_delta(slot, slot.sparse ? grad.to_dense() : grad));
    // A sparse gradient travels dense (Horovod's sparse_as_dense): the sum is the same and the op is one allreduce
    // of the parameter's shape on every rank, whatever rows each rank touched.
    if (slot.sparse || options.compression != Compression::kNone || !grad.is_contiguous()) {
      return launch(slot, slot.sparse ? grad.to_dense() : grad);
    }
    slot.pending = allreduce_async_(grad, reduce_options(slot));
    slot.in_place = true;
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

  // Our hook on the node that accumulates `slot`'s gradient: attached once, and again when the node went stale
  // (set_data() changed the parameter's type, device or shape), which takes effect from the next forward pass.
  void attach(std::size_t index);

  void on_accumulated(std::size_t index) {
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
    launch_gradient(slot);
  }

  // An out-of-place result into its place: the parameter (Adasum's change), or .grad.
  void write_back(Slot& slot, const Tensor& reduced) {
    Tensor result = decompress(reduced, slot.param.scalar_type(), options.compression);
    if (adasum()) {
      slot.param.detach().add_(result);
    } else if (slot.sparse) {
      slot.param.mutable_grad() = result.to_sparse();  // the optimizer (SparseAdam) gets what it expects
    } else if (slot.param.grad().defined()) {
      slot.param.mutable_grad().copy_(result);
    } else {
      slot.param.mutable_grad() = result;
    }
  }

  void synchronize() {
    ::torch::NoGradGuard no_grad;
    std::lock_guard<std::mutex> lock(mutex);
    if (synchronized) return;
    for (auto& slot : slots) {
      if (slot.pending.valid()) continue;
      // Fewer passes than backward_passes_per_step, or no gradient at all: still join the named allreduce.
      if (slot.passes > 0 && slot.param.grad().defined()) {
        launch_gradient(slot);
      } else {
        launch(slot, adasum() ? local_delta(slot, Tensor())
                              : ::torch::zeros_like(slot.param, ::torch::MemoryFormat::Contiguous));
      }
    }
    std::exception_ptr first_error;
    for (auto& slot : slots) {
      try {
        Tensor reduced = slot.pending.wait();
        if (!slot.in_place) write_back(slot, reduced);
      } catch (...) {
        if (!first_error) first_error = std::current_exception();
      }
      slot.pending = TensorHandle();
      slot.passes = 0;
      slot.sparse = false;
    }
    for (std::size_t i = 0; i < slots.size(); ++i) attach(i);
    if (first_error) std::rethrow_exception(first_error);
    synchronized = true;
  }
};

// Runs once autograd has accumulated a parameter's gradient into .grad.
struct DistributedOptimizer::AccumulatedHook final : ::torch::autograd::FunctionPostHook {
  AccumulatedHook(Impl* impl, std::size_t index) : impl(impl), index(index) {}
  ::torch::autograd::variable_list operator()(const ::torch::autograd::variable_list& outputs,
                                              const ::torch::autograd::variable_list&) override {
    impl->on_accumulated(index);
    return outputs;
  }
  Impl* impl;
  std::size_t index;
};

void DistributedOptimizer::Impl::attach(std::size_t index) {
  Slot& slot = slots[index];
  if (slot.accumulator) {
    const bool current = ::torch::autograd::impl::try_get_grad_accumulator(slot.param) == slot.accumulator &&
                         slot.accumulator->input_metadata(0).is_same_shape(slot.param);
    if (current) return;
    slot.accumulator->del_post_hook(slot.hook);
    ::torch::autograd::impl::set_grad_accumulator(slot.param, {});  // autograd makes one that fits the parameter
  }
  slot.accumulator = ::torch::autograd::impl::grad_accumulator(slot.param);
  slot.hook = slot.accumulator->add_post_hook(std::make_unique<AccumulatedHook>(this, index));
}

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
      Impl::Slot& slot = impl_->slots.emplace_back();
      slot.name = it->second;
      slot.param = p;
    }
  }
  for (std::size_t i = 0; i < impl_->slots.size(); ++i) impl_->attach(i);
}

DistributedOptimizer::~DistributedOptimizer() {
  for (auto& slot : impl_->slots) {
    slot.accumulator->del_post_hook(slot.hook);
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
  for (std::size_t i = 0; i < impl_->slots.size(); ++i) impl_->attach(i);
  impl_->optimizer.zero_grad();
}

::torch::optim::Optimizer& DistributedOptimizer::optimizer() { return impl_->optimizer; }

}  // namespace hvd::torch
