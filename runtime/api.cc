// The public C++ API (hvd.h, collectives.h): checks what can be checked on this rank alone, builds the requests
// and hands them to the engine. Everything that needs the other ranks is the coordinator's job.
#include <spdlog/spdlog.h>

#include "hvd/hvd.h"
#include "runtime/comm/cpu_backend.h"
#include "runtime/comm/gpu_backend.h"
#include "runtime/runtime.h"

namespace hvd {
namespace {

using detail::OpType;
using detail::Request;
using detail::Runtime;
using detail::TensorEntry;
using Pickup = detail::Engine::Pickup;

void check_view(const TensorView& t, const char* op, const std::string& name, const char* which) {
  for (auto d : t.shape) {
    if (d < 0) {
      throw Error(std::string(op) + " '" + name + "': the " + which + " has a negative dimension in " +
                  detail::shape_string(t.shape));
    }
  }
  if (!t.data && t.num_elements() > 0) {
    throw Error(std::string(op) + " '" + name + "': the " + which + " has no data pointer");
  }
  // Whether a GPU tensor can run (a device, NCCL in this build) is the GPU backend's answer, on the handle.
  if (t.device.is_gpu() && t.device.index < 0) {
    throw Error(std::string(op) + " '" + name + "': the " + which + " is a GPU tensor without a device index; " +
                "use Device::gpu(index)");
  }
}

Request make_request(OpType type, const std::string& name, const TensorView& input) {
  Request q;
  q.rank = Runtime::get().topology().rank;
  q.type = type;
  q.name = name;
  q.dtype = input.dtype;
  q.shape = input.shape;
  q.device = input.device.kind;
  return q;
}

std::string name_or_next(const std::string& name, OpType type) {
  return name.empty() ? Runtime::get().engine().next_name(type) : name;
}

// kCaller for the blocking forms: the calling thread waits next and runs the cycle itself (engine.h).
Handle submit(Request q, const TensorView& input, const TensorView& output, OutputAllocator allocate = {},
              Pickup pickup = Pickup::kBackground) {
  auto state = std::make_shared<detail::HandleState>(1);
  std::vector<TensorEntry> entries;
  entries.push_back(TensorEntry{std::move(q), input, output, std::move(allocate), state});
  Runtime::get().engine().enqueue(std::move(entries), pickup);
  return Handle(state);
}

void check_same(const TensorView& in, const TensorView& out, const char* op, const std::string& name) {
  if (in.device.kind != out.device.kind || in.device.index != out.device.index) {
    throw Error(std::string(op) + " '" + name + "': the output must be on the input's device");
  }
  if (in.dtype != out.dtype || in.num_elements() != out.num_elements()) {
    throw Error(std::string(op) + " '" + name + "': the output (" + name_of(out.dtype) + " " +
                detail::shape_string(out.shape) + ") must match the input (" + name_of(in.dtype) + " " +
                detail::shape_string(in.shape) + ")");
  }
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
int cross_rank() { return Runtime::get().topology().cross_rank; }
int cross_size() { return Runtime::get().topology().cross_size; }

namespace {

TensorEntry allreduce_entry(const TensorView& input, const TensorView& output, const AllreduceOptions& options,
                            std::shared_ptr<detail::HandleState> state) {
  auto name = name_or_next(options.name, OpType::kAllreduce);
  check_view(input, "allreduce", name, "input");
  check_view(output, "allreduce", name, "output");
  check_same(input, output, "allreduce", name);
  Request q = make_request(OpType::kAllreduce, name, input);
  q.reduce_op = options.op;
  q.prescale = options.prescale_factor;
  q.postscale = options.postscale_factor;
  return TensorEntry{std::move(q), input, output, {}, std::move(state)};
}

Handle allreduce_submit(const TensorView& input, const TensorView& output, const AllreduceOptions& options,
                        Pickup pickup) {
  auto state = std::make_shared<detail::HandleState>(1);
  std::vector<TensorEntry> entries;
  entries.push_back(allreduce_entry(input, output, options, state));
  Runtime::get().engine().enqueue(std::move(entries), pickup);
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
    throw Error("allreduce batch: " + std::to_string(inputs.size()) + " inputs, " + std::to_string(outputs.size()) +
                " outputs and " + std::to_string(names.size()) + " names; pass one output and one name per input");
  }
  std::vector<TensorEntry> entries;
  std::vector<Handle> handles;
  entries.reserve(inputs.size());
  handles.reserve(inputs.size());
  AllreduceOptions each = options;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    auto state = std::make_shared<detail::HandleState>(1);
    each.name = names[i];
    entries.push_back(allreduce_entry(inputs[i], outputs[i], each, state));
    handles.emplace_back(std::move(state));
  }
  if (entries.empty()) return handles;
  // The step is complete: this thread runs it now when the engine is idle, else hands it to the engine's thread.
  auto last = entries.back().handle;
  auto& engine = Runtime::get().engine();
  engine.enqueue(std::move(entries), Pickup::kCaller);
  engine.drive(*last);
  return handles;
}

Handle grouped_allreduce_async(const std::vector<TensorView>& inputs, const std::vector<TensorView>& outputs,
                               const AllreduceOptions& options) {
  auto group = name_or_next(options.name, OpType::kAllreduce);
  if (inputs.size() != outputs.size()) {
    throw Error("grouped allreduce '" + group + "': " + std::to_string(inputs.size()) + " inputs but " +
                std::to_string(outputs.size()) + " outputs; pass one output per input");
  }
  auto state = std::make_shared<detail::HandleState>(static_cast<int>(inputs.size()));
  std::vector<TensorEntry> entries;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    auto name = group + "." + std::to_string(i);
    check_view(inputs[i], "allreduce", name, "input");
    check_view(outputs[i], "allreduce", name, "output");
    check_same(inputs[i], outputs[i], "allreduce", name);
    Request q = make_request(OpType::kAllreduce, name, inputs[i]);
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
  Runtime::get().engine().enqueue(std::move(entries));
  return Handle(state);
}

void grouped_allreduce(const std::vector<TensorView>& inputs, const std::vector<TensorView>& outputs,
                       const AllreduceOptions& options) {
  grouped_allreduce_async(inputs, outputs, options).wait();
}

Handle allgather_async(const TensorView& input, const AllgatherOptions& options) {
  auto name = name_or_next(options.name, OpType::kAllgather);
  check_view(input, "allgather", name, "input");
  return submit(make_request(OpType::kAllgather, name, input), input, {}, options.allocate);
}

TensorView allgather(const TensorView& input, const AllgatherOptions& options) {
  if (!options.allocate) {
    throw Error(
        "allgather: the blocking form needs options.allocate (the result must live somewhere); or call "
        "allgather_async and read handle.output() while you keep the handle");
  }
  auto h = allgather_async(input, options);
  h.wait();
  return h.output();
}

namespace {
Handle broadcast_submit(const TensorView& tensor, const BroadcastOptions& options, Pickup pickup) {
  auto name = name_or_next(options.name, OpType::kBroadcast);
  check_view(tensor, "broadcast", name, "tensor");
  Request q = make_request(OpType::kBroadcast, name, tensor);
  q.root = options.root;
  return submit(std::move(q), tensor, tensor, {}, pickup);
}
}  // namespace

Handle broadcast_async(const TensorView& tensor, const BroadcastOptions& options) {
  return broadcast_submit(tensor, options, Pickup::kBackground);
}

void broadcast(const TensorView& tensor, const BroadcastOptions& options) {
  broadcast_submit(tensor, options, Pickup::kCaller).wait();
}

Handle alltoall_async(const TensorView& input, const AlltoallOptions& options) {
  auto name = name_or_next(options.name, OpType::kAlltoall);
  check_view(input, "alltoall", name, "input");
  Request q = make_request(OpType::kAlltoall, name, input);
  q.splits = options.splits;
  return submit(std::move(q), input, {}, options.allocate);
}

Handle reducescatter_async(const TensorView& input, const ReducescatterOptions& options) {
  auto name = name_or_next(options.name, OpType::kReducescatter);
  check_view(input, "reducescatter", name, "input");
  Request q = make_request(OpType::kReducescatter, name, input);
  q.reduce_op = options.op;
  return submit(std::move(q), input, {}, options.allocate);
}

void barrier() {
  auto name = Runtime::get().engine().next_name(OpType::kBarrier);
  TensorView none{nullptr, DataType::kUInt8, {0}, {}};
  submit(make_request(OpType::kBarrier, name, none), none, none, {}, Pickup::kCaller).wait();
}

int join() {
  TensorView none{nullptr, DataType::kUInt8, {0}, {}};
  auto h = submit(make_request(OpType::kJoin, "join", none), none, none, {}, Pickup::kCaller);
  h.wait();
  return h.last_joined_rank();
}

}  // namespace hvd
