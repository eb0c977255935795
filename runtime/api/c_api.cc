// The C API over the C++ one: every exception becomes -1 and a per-thread error string. What C can get wrong
// that C++'s types prevent (enum values out of range, negative counts, NULL pointers, shape arrays) is checked
// here, before the C++ API's own checks (runtime/api/argument_checks.h) and long before the engine.
#include "hvd/c_api.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "hvd/hvd.h"
#include "runtime/api/uncaught_exception.h"

struct hvd_handle {
  hvd::Handle handle;
};

namespace {

static_assert(static_cast<int>(hvd::DataType::kBool) == HVD_BOOL &&
              static_cast<int>(hvd::DataType::kFloat16) == HVD_FLOAT16);
static_assert(static_cast<int>(hvd::ReduceOp::kAdasum) == HVD_ADASUM &&
              static_cast<int>(hvd::ReduceOp::kMin) == HVD_MIN);

static_assert(static_cast<int>(hvd::ErrorKind::kInternal) == HVD_ERROR_INTERNAL &&
              static_cast<int>(hvd::ErrorKind::kMembership) == HVD_ERROR_MEMBERSHIP);

thread_local std::string t_last_error;
thread_local hvd_error_kind t_last_kind = HVD_ERROR_NONE;
thread_local hvd::ErrorContext t_last_context;
thread_local std::int32_t t_process_set = 0;  // hvd_use_process_set: this thread's collectives run there

template <typename F>
int guarded(F&& f) {
  try {
    return f();
  } catch (const hvd::Error& e) {
    t_last_error = e.what();
    t_last_kind = static_cast<hvd_error_kind>(e.kind());
    t_last_context = e.context();
  } catch (const std::exception& e) {
    t_last_error = e.what();
    t_last_kind = HVD_ERROR_INTERNAL;
    t_last_context = {};
  } catch (...) {
    t_last_error = "unknown error";
    t_last_kind = HVD_ERROR_INTERNAL;
    t_last_context = {};
  }
  return -1;
}

[[noreturn]] void fail(const char* call, const std::string& what) {
  throw hvd::Error(hvd::ErrorKind::kUsage, std::string(call) + ": " + what);
}

// Before the cast: hvd::DataType is one byte, so 300 would otherwise pass as 44.
hvd::DataType to_dtype(hvd_dtype dtype, const char* call) {
  const int value = static_cast<int>(dtype);
  if (value < HVD_UINT8 || value > HVD_BOOL) {
    fail(call, "unknown dtype " + std::to_string(value) + "; pass one of HVD_UINT8 (0) ... HVD_BOOL (10)");
  }
  return static_cast<hvd::DataType>(value);
}

hvd::ReduceOp to_op(hvd_reduce_op op, const char* call) {
  const int value = static_cast<int>(op);
  if (value < HVD_SUM || value > HVD_ADASUM) {
    fail(call, "unknown reduce op " + std::to_string(value) + "; pass one of HVD_SUM (0) ... HVD_ADASUM (5)");
  }
  return static_cast<hvd::ReduceOp>(value);
}

hvd::TensorView flat(const void* data, int64_t count, hvd_dtype dtype, const char* call) {
  if (count < 0) fail(call, "count " + std::to_string(count) + " is negative; pass the number of elements");
  return hvd::TensorView{const_cast<void*>(data), to_dtype(dtype, call), {count}, {}};
}

hvd::TensorView shaped(const void* data, const int64_t* shape, int ndim, hvd_dtype dtype, const char* call) {
  if (ndim < 0 || ndim > HVD_MAX_NDIM) {
    fail(call, "ndim " + std::to_string(ndim) + " is out of range; pass 0 to " + std::to_string(HVD_MAX_NDIM));
  }
  if (ndim > 0 && !shape) fail(call, "shape is NULL but ndim is " + std::to_string(ndim) + "; pass ndim sizes");
  return hvd::TensorView{const_cast<void*>(data), to_dtype(dtype, call), std::vector<int64_t>(shape, shape + ndim), {}};
}

void check_handle_pointer(hvd_handle** out, const char* call) {
  if (!out) fail(call, "the hvd_handle** is NULL; pass the address of an hvd_handle*");
}

int hand_out(hvd::Handle h, hvd_handle** out) {
  *out = new hvd_handle{std::move(h)};
  return 0;
}

hvd_handle& checked(hvd_handle* h, const char* call) {
  if (!h) fail(call, "the handle is NULL");
  return *h;
}

std::string name_of(const char* name) { return name ? name : ""; }

hvd::detail::UncaughtException uncaught_from(const hvd_uncaught_exception& e) {
  hvd::detail::UncaughtException out{.source = name_of(e.source), .type = name_of(e.type_name),
                                      .message = name_of(e.message)};
  for (int i = 0; e.frames && i < e.num_frames; ++i) out.frames.push_back(name_of(e.frames[i]));
  out.hvd_error = e.is_hvd_error != 0;
  out.peer = e.peer;
  out.tensor = name_of(e.tensor);
  return out;
}

// The blocking forms: the async call, then a wait; a failed op releases its handle and hands out nothing.
template <typename Start>
int finished(hvd_handle** result, const char* call, Start start) {
  return guarded([&] {
    check_handle_pointer(result, call);
    hvd_handle* h = nullptr;
    if (start(&h) != 0) return -1;
    if (hvd_wait(h) != 0) {
      hvd_handle_release(h);
      return -1;
    }
    *result = h;
    return 0;
  });
}

}  // namespace

extern "C" {

const char* hvd_last_error(void) { return t_last_error.c_str(); }

hvd_error_kind hvd_last_error_kind(void) { return t_last_kind; }

void hvd_last_error_info(hvd_error_info* info) {
  if (!info) return;
  info->kind = t_last_kind;
  info->rank = t_last_context.rank;
  info->peer = t_last_context.peer;
  info->host = t_last_context.host.c_str();
  info->tensor = t_last_context.tensor.c_str();
}

int hvd_init(void) {
  return guarded([] {
    hvd::init();
    return 0;
  });
}
int hvd_shutdown(void) {
  return guarded([] {
    hvd::shutdown();
    return 0;
  });
}
int hvd_is_initialized(void) { return hvd::is_initialized() ? 1 : 0; }
int hvd_rank(void) {
  return guarded([] { return hvd::rank(); });
}
int hvd_size(void) {
  return guarded([] { return hvd::size(); });
}
int hvd_local_rank(void) {
  return guarded([] { return hvd::local_rank(); });
}
int hvd_local_size(void) {
  return guarded([] { return hvd::local_size(); });
}
int hvd_cross_rank(void) {
  return guarded([] { return hvd::cross_rank(); });
}
int hvd_cross_size(void) {
  return guarded([] { return hvd::cross_size(); });
}

int hvd_start_timeline(const char* file, int mark_cycles) {
  return guarded([&] {
    if (!file) throw hvd::Error(hvd::ErrorKind::kUsage, "hvd_start_timeline: file is NULL; pass the path of the trace to write");
    hvd::start_timeline(file, mark_cycles != 0);
    return 0;
  });
}
int hvd_stop_timeline(void) {
  return guarded([] {
    hvd::stop_timeline();
    return 0;
  });
}

int hvd_allreduce_async(const void* in, void* out, int64_t count, hvd_dtype dtype, hvd_reduce_op op, double prescale,
                        double postscale, const char* name, hvd_handle** handle) {
  return guarded([&] {
    const char* call = "hvd_allreduce_async";
    check_handle_pointer(handle, call);
    hvd::AllreduceOptions o{to_op(op, call), prescale, postscale, name_of(name), t_process_set};
    return hand_out(hvd::allreduce_async(flat(in, count, dtype, call), flat(out, count, dtype, call), o), handle);
  });
}

int hvd_allreduce(const void* in, void* out, int64_t count, hvd_dtype dtype, hvd_reduce_op op, double prescale,
                  double postscale, const char* name) {
  return guarded([&] {
    const char* call = "hvd_allreduce";
    hvd::AllreduceOptions o{to_op(op, call), prescale, postscale, name_of(name), t_process_set};
    hvd::allreduce(flat(in, count, dtype, call), flat(out, count, dtype, call), o);
    return 0;
  });
}

int hvd_broadcast_async(void* data, int64_t count, hvd_dtype dtype, int root, const char* name, hvd_handle** handle) {
  return guarded([&] {
    const char* call = "hvd_broadcast_async";
    check_handle_pointer(handle, call);
    return hand_out(hvd::broadcast_async(flat(data, count, dtype, call), {root, name_of(name), t_process_set}), handle);
  });
}

int hvd_broadcast(void* data, int64_t count, hvd_dtype dtype, int root, const char* name) {
  return guarded([&] {
    hvd::broadcast(flat(data, count, dtype, "hvd_broadcast"), {root, name_of(name), t_process_set});
    return 0;
  });
}

int hvd_allgather_async(const void* in, const int64_t* shape, int ndim, hvd_dtype dtype, const char* name,
                        hvd_handle** handle) {
  return guarded([&] {
    const char* call = "hvd_allgather_async";
    check_handle_pointer(handle, call);
    return hand_out(hvd::allgather_async(shaped(in, shape, ndim, dtype, call), {name_of(name), {}, t_process_set}), handle);
  });
}

int hvd_alltoall_async(const void* in, const int64_t* shape, int ndim, hvd_dtype dtype, const int64_t* splits,
                       const char* name, hvd_handle** handle) {
  return guarded([&] {
    const char* call = "hvd_alltoall_async";
    check_handle_pointer(handle, call);
    hvd::AlltoallOptions o;
    auto input = shaped(in, shape, ndim, dtype, call);
    o.process_set = t_process_set;
    if (splits) o.splits.assign(splits, splits + hvd::process_set(t_process_set).size());
    o.name = name_of(name);
    return hand_out(hvd::alltoall_async(input, o), handle);
  });
}

int hvd_reducescatter_async(const void* in, const int64_t* shape, int ndim, hvd_dtype dtype, hvd_reduce_op op,
                            const char* name, hvd_handle** handle) {
  return guarded([&] {
    const char* call = "hvd_reducescatter_async";
    check_handle_pointer(handle, call);
    hvd::ReducescatterOptions o;
    o.op = to_op(op, call);
    o.name = name_of(name);
    o.process_set = t_process_set;
    return hand_out(hvd::reducescatter_async(shaped(in, shape, ndim, dtype, call), o), handle);
  });
}

int hvd_allgather(const void* in, const int64_t* shape, int ndim, hvd_dtype dtype, const char* name,
                  hvd_handle** result) {
  return finished(result, "hvd_allgather",
                  [&](hvd_handle** h) { return hvd_allgather_async(in, shape, ndim, dtype, name, h); });
}

int hvd_alltoall(const void* in, const int64_t* shape, int ndim, hvd_dtype dtype, const int64_t* splits,
                 const char* name, hvd_handle** result) {
  return finished(result, "hvd_alltoall",
                  [&](hvd_handle** h) { return hvd_alltoall_async(in, shape, ndim, dtype, splits, name, h); });
}

int hvd_reducescatter(const void* in, const int64_t* shape, int ndim, hvd_dtype dtype, hvd_reduce_op op,
                      const char* name, hvd_handle** result) {
  return finished(result, "hvd_reducescatter",
                  [&](hvd_handle** h) { return hvd_reducescatter_async(in, shape, ndim, dtype, op, name, h); });
}

int hvd_barrier(void) {
  return guarded([] {
    hvd::barrier(t_process_set);
    return 0;
  });
}
int hvd_join(void) {
  return guarded([] { return hvd::join(); });
}

int hvd_poll(hvd_handle* h) {
  return guarded([&] { return checked(h, "hvd_poll").handle.poll() ? 1 : 0; });
}

int hvd_wait(hvd_handle* h) {
  return guarded([&] {
    checked(h, "hvd_wait").handle.wait();
    return 0;
  });
}

int hvd_handle_output(hvd_handle* h, const void** data, int64_t* shape, int max_ndim, int* ndim) {
  return guarded([&] {
    const char* call = "hvd_handle_output";
    auto& handle = checked(h, call).handle;
    if (max_ndim < 0) fail(call, "max_ndim " + std::to_string(max_ndim) + " is negative");
    if (!handle.poll()) fail(call, "the op is still running; call hvd_wait() first");
    handle.wait();  // done: rethrows a failed op's error instead of handing out an empty output
    const auto& out = handle.output();
    if (data) *data = out.data;
    if (ndim) *ndim = static_cast<int>(out.shape.size());
    for (int i = 0; shape && i < max_ndim && i < static_cast<int>(out.shape.size()); ++i) shape[i] = out.shape[i];
    return 0;
  });
}

int hvd_handle_received_splits(hvd_handle* h, int64_t* splits, int max_count) {
  return guarded([&] {
    const char* call = "hvd_handle_received_splits";
    auto& handle = checked(h, call).handle;
    if (max_count < 0) fail(call, "max_count " + std::to_string(max_count) + " is negative");
    if (!handle.poll()) fail(call, "the op is still running; call hvd_wait() first");
    handle.wait();
    const auto& s = handle.received_splits();
    for (int i = 0; splits && i < max_count && i < static_cast<int>(s.size()); ++i) splits[i] = s[i];
    return static_cast<int>(s.size());
  });
}

void hvd_handle_release(hvd_handle* h) { delete h; }

int hvd_record_uncaught(const char* path, const hvd_uncaught_exception* e) {
  return guarded([&] {
    if (!path || !e) fail("hvd_record_uncaught", "path or exception is NULL");
    hvd::detail::record_foreign_exception(path, uncaught_from(*e));
    return 0;
  });
}

}  // extern "C"

// ---- process sets (hvd/process_set.h) ---------------------------------------------------------------------------

int hvd_init_process_sets(const int* ranks, const int* set_sizes, int num_sets) {
  return guarded([&] {
    if (num_sets < 0 || (num_sets > 0 && (!ranks || !set_sizes))) {
      fail("hvd_init_process_sets", "num_sets " + std::to_string(num_sets) + " with NULL ranks or set_sizes");
    }
    std::vector<std::vector<int>> sets;
    for (int s = 0, at = 0; s < num_sets; at += set_sizes[s], ++s) {
      if (set_sizes[s] < 0) fail("hvd_init_process_sets", "set " + std::to_string(s) + " has a negative size");
      sets.emplace_back(ranks + at, ranks + at + set_sizes[s]);
    }
    hvd::init(sets);
    return 0;
  });
}

int hvd_add_process_set(const int* ranks, int count) {
  return guarded([&] {
    if (count < 0 || (count > 0 && !ranks)) fail("hvd_add_process_set", "NULL ranks or negative count");
    return static_cast<int>(hvd::add_process_set(std::vector<int>(ranks, ranks + count)).id());
  });
}

int hvd_remove_process_set(int id) {
  return guarded([&] {
    hvd::remove_process_set(hvd::process_set(id));
    return 0;
  });
}

int hvd_process_set_rank(int id) {
  return guarded([&] { return hvd::process_set(id).rank(); });
}

int hvd_process_set_size(int id) {
  return guarded([&] { return hvd::process_set(id).size(); });
}

int hvd_process_set_ranks(int id, int* ranks, int max_count) {
  return guarded([&] {
    const auto set = hvd::process_set(id);
    if (max_count < set.size() || !ranks) {
      fail("hvd_process_set_ranks", "process set " + std::to_string(id) + " has " + std::to_string(set.size()) +
                                        " ranks; pass room for them");
    }
    std::copy(set.ranks().begin(), set.ranks().end(), ranks);
    return set.size();
  });
}

int hvd_use_process_set(int id) {
  return guarded([&] {
    (void)hvd::process_set(id);  // refuses an unknown id now rather than at the next op
    return static_cast<int>(std::exchange(t_process_set, id));
  });
}

