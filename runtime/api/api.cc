// The public C++ API (hvd.h, collectives.h): checks what can be checked on this rank alone, builds the requests
// and hands them to the engine. Everything that needs the other ranks is the coordinator's job.
#include <spdlog/spdlog.h>

#include "hvd/hvd.h"
#include "runtime/api/argument_checks.h"
#include "runtime/comm/cpu_backend.h"
#include "runtime/comm/shm/cpu_binding.h"
#include "runtime/engine/gpu/gpu_backend.h"
#include "runtime/api/runtime.h"

namespace hvd {
namespace {

using detail::CallSite;
using detail::OpType;
using detail::ProcessSetTable;
using detail::Request;
using detail::Runtime;
using detail::TensorEntry;
using Pickup = detail::Engine::Pickup;

using Member = ProcessSetTable::Member;

// The engine of the op's process set and this rank's place in it; throws (usage) when this rank is not a member.
Member member_of(std::int32_t process_set, const detail::CallSite& at) {
  return Runtime::get().process_sets().member(process_set, at);
}

// By value: the name is usually a temporary (name_or_next), moved in rather than copied again.
Request make_request(OpType type, std::string name, const TensorView& input, const Member& m) {
  Request q;
  q.rank = m.rank;
  q.type = type;
  q.name = std::move(name);
  q.dtype = input.dtype;
  q.shape = input.shape;
  q.device = input.device.kind;
  return q;
}

std::string name_or_next(const std::string& name, OpType type, const Member& m) {
  return name.empty() ? m.engine.next_name(type) : name;
}

// kCaller for the blocking forms: the calling thread waits next and runs the cycle itself (engine.h).
Handle submit(const Member& m, Request q, const TensorView& input, const TensorView& output,
              OutputAllocator allocate = {}, Pickup pickup = Pickup::kBackground) {
  auto state = std::make_shared<detail::HandleState>(1);
  std::vector<TensorEntry> entries;
  entries.push_back(TensorEntry{std::move(q), input, output, std::move(allocate), state});
  m.engine.enqueue(std::move(entries), pickup);
  return Handle(state);
}

// The blocking forms of the ops that allocate their output: wait, then hand the output over.
Output finished(Handle handle) {
  handle.wait();
  return Output(std::move(handle));
}

}  // namespace

void init() { Runtime::init(); }
void shutdown() { Runtime::shutdown(); }
bool is_initialized() { return Runtime::initialized(); }
int rank() { return Runtime::get().topology().rank; }
int size() { return Runtime::get().topology().size; }
int local_rank() { return Runtime::get().topology().local_rank; }
std::string cpu_backend() { return Runtime::get().cpu_backend(); }
bool mpi_enabled() { return cpu_backend() == "mpi"; }
bool nccl_built() { return detail::gpu_backend_built(); }
bool mpi_built() {
  for (const auto& backend : detail::cpu_backends())
    if (backend.name == "mpi") return backend.built;
  return false;
}
int local_size() { return Runtime::get().topology().local_size; }
void set_compute_threads_query(int (*query)()) { detail::set_compute_threads_query(query); }
int cross_rank() { return Runtime::get().topology().cross_rank; }
int cross_size() { return Runtime::get().topology().cross_size; }

namespace {

// Every call is checked before it takes a name from the call order: a bad call must not shift the names of the
// good ones after it, or this rank's next unnamed op would pair with another op on the other ranks.
void check_allreduce(const TensorView& input, const TensorView& output, const AllreduceOptions& options) {
  const CallSite at{"allreduce", options.name};
  check_tensor(input, at, "input");
  check_tensor(output, at, "output");
  check_output_matches(input, output, at);
  check_reduction(options.op, false, input.dtype, options.prescale_factor, options.postscale_factor, at);
}

// The caller has checked the arguments (check_allreduce).
TensorEntry allreduce_entry(const TensorView& input, const TensorView& output, const AllreduceOptions& options,
                            std::shared_ptr<detail::HandleState> state, const Member& m) {
  Request q = make_request(OpType::kAllreduce, name_or_next(options.name, OpType::kAllreduce, m), input, m);
  q.reduce_op = options.op;
  q.prescale = options.prescale_factor;
  q.postscale = options.postscale_factor;
  return TensorEntry{std::move(q), input, output, {}, std::move(state)};
}

Handle allreduce_submit(const TensorView& input, const TensorView& output, const AllreduceOptions& options,
                        Pickup pickup) {
  check_allreduce(input, output, options);
  const Member m = member_of(options.process_set, {"allreduce", options.name});
  auto state = std::make_shared<detail::HandleState>(1);
  std::vector<TensorEntry> entries;
  entries.push_back(allreduce_entry(input, output, options, state, m));
  m.engine.enqueue(std::move(entries), pickup);
  return Handle(state);
}

}  // namespace

Handle allreduce_async(const TensorView& input, const TensorView& output, const AllreduceOptions& options) {
  return allreduce_submit(input, output, options, Pickup::kBackground);
}

void allreduce(const TensorView& input, const TensorView& output, const AllreduceOptions& options) {
  allreduce_submit(input, output, options, Pickup::kCaller).wait();
}

std::vector<Handle> allreduce_batch_async(const std::vector<TensorView>& inputs, const std::vector<TensorView>& outputs,
                                          const std::vector<std::string>& names, const AllreduceOptions& options) {
  if (inputs.size() != outputs.size() || inputs.size() != names.size()) {
    throw Error(ErrorKind::kUsage, "allreduce batch: " + std::to_string(inputs.size()) + " inputs, " +
                                       std::to_string(outputs.size()) + " outputs and " + std::to_string(names.size()) +
                                       " names; pass one output and one name per input");
  }
  std::vector<TensorEntry> entries;
  std::vector<Handle> handles;
  entries.reserve(inputs.size());
  handles.reserve(inputs.size());
  AllreduceOptions each = options;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    each.name = names[i];
    check_allreduce(inputs[i], outputs[i], each);
  }
  const Member m = member_of(options.process_set, {"allreduce batch", options.name});
  // The step's handle states in one block rather than one allocation each (a burst of them overflows malloc's
  // per-thread cache); every handle shares the block, which goes with the last of them.
  std::shared_ptr<detail::HandleState[]> states(new detail::HandleState[inputs.size()]);
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    std::shared_ptr<detail::HandleState> state(states, &states[i]);
    each.name = names[i];
    entries.push_back(allreduce_entry(inputs[i], outputs[i], each, state, m));
    handles.emplace_back(std::move(state));
  }
  if (entries.empty()) return handles;
  // The step is complete: this thread runs it now when the engine is idle, else hands it to the engine's thread.
  auto last = entries.back().handle;
  auto& engine = m.engine;
  engine.enqueue(std::move(entries), Pickup::kCaller);
  engine.drive(*last);
  return handles;
}

Handle grouped_allreduce_async(const std::vector<TensorView>& inputs, const std::vector<TensorView>& outputs,
                               const AllreduceOptions& options) {
  const CallSite group_at{"grouped allreduce", options.name};
  if (inputs.size() != outputs.size()) {
    throw Error(ErrorKind::kUsage, group_at.describe() + ": " + std::to_string(inputs.size()) + " inputs but " +
                                       std::to_string(outputs.size()) + " outputs; pass one output per input");
  }
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const std::string member = options.name.empty() ? "" : options.name + "." + std::to_string(i);
    const CallSite at{"grouped allreduce", member};
    check_tensor(inputs[i], at, "input");
    check_tensor(outputs[i], at, "output");
    check_output_matches(inputs[i], outputs[i], at);
    check_reduction(options.op, false, inputs[i].dtype, options.prescale_factor, options.postscale_factor, at);
  }
  const Member m = member_of(options.process_set, group_at);
  auto group = name_or_next(options.name, OpType::kAllreduce, m);
  auto state = std::make_shared<detail::HandleState>(static_cast<int>(inputs.size()));
  std::vector<TensorEntry> entries;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    Request q = make_request(OpType::kAllreduce, group + "." + std::to_string(i), inputs[i], m);
    q.reduce_op = options.op;
    q.prescale = options.prescale_factor;
    q.postscale = options.postscale_factor;
    q.group = group;
    q.group_size = static_cast<std::int32_t>(inputs.size());
    entries.push_back(TensorEntry{std::move(q), inputs[i], outputs[i], {}, state});
  }
  if (entries.empty()) {
    state->fail_all(nullptr);  // nothing to do: done at once
    return Handle(state);
  }
  m.engine.enqueue(std::move(entries));
  return Handle(state);
}

void grouped_allreduce(const std::vector<TensorView>& inputs, const std::vector<TensorView>& outputs,
                       const AllreduceOptions& options) {
  grouped_allreduce_async(inputs, outputs, options).wait();
}

Handle allgather_async(const TensorView& input, const AllgatherOptions& options) {
  const CallSite at{"allgather", options.name};
  check_tensor(input, at, "input");
  check_has_rows(input, at);
  const Member m = member_of(options.process_set, at);
  auto name = name_or_next(options.name, OpType::kAllgather, m);
  return submit(m, make_request(OpType::kAllgather, std::move(name), input, m), input, {}, options.allocate);
}

Output allgather(const TensorView& input, const AllgatherOptions& options) {
  return finished(allgather_async(input, options));
}

namespace {
Handle broadcast_submit(const TensorView& tensor, const BroadcastOptions& options, Pickup pickup) {
  const CallSite at{"broadcast", options.name};
  check_tensor(tensor, at, "tensor");
  check_root(options.root, Runtime::get().topology().size, at);
  const Member m = member_of(options.process_set, at);
  // The root is a rank of the job; the set's engine numbers its members 0.. in the set's order.
  const int root = m.ranks ? detail::root_in_set(options.root, *m.ranks, options.process_set, at) : options.root;
  Request q = make_request(OpType::kBroadcast, name_or_next(options.name, OpType::kBroadcast, m), tensor, m);
  q.root = root;
  return submit(m, std::move(q), tensor, tensor, {}, pickup);
}
}  // namespace

Handle broadcast_async(const TensorView& tensor, const BroadcastOptions& options) {
  return broadcast_submit(tensor, options, Pickup::kBackground);
}

void broadcast(const TensorView& tensor, const BroadcastOptions& options) {
  broadcast_submit(tensor, options, Pickup::kCaller).wait();
}

Handle alltoall_async(const TensorView& input, const AlltoallOptions& options) {
  const CallSite at{"alltoall", options.name};
  check_tensor(input, at, "input");
  check_has_rows(input, at);
  const Member m = member_of(options.process_set, at);
  check_splits(options.splits, input.shape[0], m.size, at);
  Request q = make_request(OpType::kAlltoall, name_or_next(options.name, OpType::kAlltoall, m), input, m);
  q.splits = options.splits;
  return submit(m, std::move(q), input, {}, options.allocate);
}

Output alltoall(const TensorView& input, const AlltoallOptions& options) {
  return finished(alltoall_async(input, options));
}

Handle reducescatter_async(const TensorView& input, const ReducescatterOptions& options) {
  const CallSite at{"reducescatter", options.name};
  check_tensor(input, at, "input");
  check_has_rows(input, at);
  check_reduction(options.op, true, input.dtype, 1.0, 1.0, at);
  const Member m = member_of(options.process_set, at);
  Request q = make_request(OpType::kReducescatter, name_or_next(options.name, OpType::kReducescatter, m), input, m);
  q.reduce_op = options.op;
  return submit(m, std::move(q), input, {}, options.allocate);
}

Output reducescatter(const TensorView& input, const ReducescatterOptions& options) {
  return finished(reducescatter_async(input, options));
}

void barrier() { barrier(0); }

void barrier(std::int32_t process_set) {
  const Member m = member_of(process_set, {"barrier", ""});
  auto name = m.engine.next_name(OpType::kBarrier);
  TensorView none{nullptr, DataType::kUInt8, {0}, {}};
  submit(m, make_request(OpType::kBarrier, std::move(name), none, m), none, none, {}, Pickup::kCaller).wait();
}

int join() {
  TensorView none{nullptr, DataType::kUInt8, {0}, {}};
  const Member m = member_of(0, {"join", ""});
  auto h = submit(m, make_request(OpType::kJoin, "join", none, m), none, none, {}, Pickup::kCaller);
  h.wait();
  return h.last_joined_rank();
}

}  // namespace hvd
