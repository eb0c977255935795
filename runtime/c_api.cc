// The C API over the C++ one: every exception becomes -1 and a per-thread error string.
#include "hvd/c_api.h"

#include <string>

#include "hvd/hvd.h"

struct hvd_handle {
  hvd::Handle handle;
};

namespace {

thread_local std::string t_last_error;

template <typename F>
int guarded(F&& f) {
  try {
    return f();
  } catch (const std::exception& e) {
    t_last_error = e.what();
  } catch (...) {
    t_last_error = "unknown error";
  }
  return -1;
}

hvd::TensorView flat(const void* data, int64_t count, hvd_dtype dtype) {
  return hvd::TensorView{const_cast<void*>(data), static_cast<hvd::DataType>(dtype), {count}, {}};
}

hvd::TensorView shaped(const void* data, const int64_t* shape, int ndim, hvd_dtype dtype) {
  if (ndim < 0 || (ndim > 0 && !shape)) throw hvd::Error("bad shape: ndim < 0 or a null shape pointer");
  return hvd::TensorView{
      const_cast<void*>(data), static_cast<hvd::DataType>(dtype), std::vector<int64_t>(shape, shape + ndim), {}};
}

int hand_out(hvd::Handle h, hvd_handle** out) {
  if (!out) throw hvd::Error("the handle pointer is null");
  *out = new hvd_handle{std::move(h)};
  return 0;
}

std::string name_of(const char* name) { return name ? name : ""; }

}  // namespace

extern "C" {

const char* hvd_last_error(void) { return t_last_error.c_str(); }

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
    if (!file) throw hvd::Error("hvd_start_timeline: file is NULL; pass the path of the trace to write");
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
    hvd::AllreduceOptions o{static_cast<hvd::ReduceOp>(op), prescale, postscale, name_of(name)};
    return hand_out(hvd::allreduce_async(flat(in, count, dtype), flat(out, count, dtype), o), handle);
  });
}

int hvd_allreduce(const void* in, void* out, int64_t count, hvd_dtype dtype, hvd_reduce_op op, double prescale,
                  double postscale, const char* name) {
  return guarded([&] {
    hvd::AllreduceOptions o{static_cast<hvd::ReduceOp>(op), prescale, postscale, name_of(name)};
    hvd::allreduce(flat(in, count, dtype), flat(out, count, dtype), o);
    return 0;
  });
}

int hvd_broadcast_async(void* data, int64_t count, hvd_dtype dtype, int root, const char* name, hvd_handle** handle) {
  return guarded([&] {
    return hand_out(hvd::broadcast_async(flat(data, count, dtype), {root, name_of(name)}), handle);
  });
}

int hvd_broadcast(void* data, int64_t count, hvd_dtype dtype, int root, const char* name) {
  return guarded([&] {
    hvd::broadcast(flat(data, count, dtype), {root, name_of(name)});
    return 0;
  });
}

int hvd_allgather_async(const void* in, const int64_t* shape, int ndim, hvd_dtype dtype, const char* name,
                        hvd_handle** handle) {
  return guarded([&] {
    return hand_out(hvd::allgather_async(shaped(in, shape, ndim, dtype), {name_of(name), {}}), handle);
  });
}

int hvd_alltoall_async(const void* in, const int64_t* shape, int ndim, hvd_dtype dtype, const int64_t* splits,
                       const char* name, hvd_handle** handle) {
  return guarded([&] {
    hvd::AlltoallOptions o;
    if (splits) o.splits.assign(splits, splits + hvd::size());
    o.name = name_of(name);
    return hand_out(hvd::alltoall_async(shaped(in, shape, ndim, dtype), o), handle);
  });
}

int hvd_reducescatter_async(const void* in, const int64_t* shape, int ndim, hvd_dtype dtype, hvd_reduce_op op,
                            const char* name, hvd_handle** handle) {
  return guarded([&] {
    hvd::ReducescatterOptions o;
    o.op = static_cast<hvd::ReduceOp>(op);
    o.name = name_of(name);
    return hand_out(hvd::reducescatter_async(shaped(in, shape, ndim, dtype), o), handle);
  });
}

int hvd_barrier(void) {
  return guarded([] {
    hvd::barrier();
    return 0;
  });
}
int hvd_join(void) {
  return guarded([] { return hvd::join(); });
}

int hvd_poll(hvd_handle* h) {
  return guarded([&] {
    if (!h) throw hvd::Error("hvd_poll: null handle");
    return h->handle.poll() ? 1 : 0;
  });
}

int hvd_wait(hvd_handle* h) {
  return guarded([&] {
    if (!h) throw hvd::Error("hvd_wait: null handle");
    h->handle.wait();
    return 0;
  });
}

int hvd_handle_output(hvd_handle* h, const void** data, int64_t* shape, int max_ndim, int* ndim) {
  return guarded([&] {
    if (!h) throw hvd::Error("hvd_handle_output: null handle");
    const auto& out = h->handle.output();
    if (data) *data = out.data;
    if (ndim) *ndim = static_cast<int>(out.shape.size());
    for (int i = 0; shape && i < max_ndim && i < static_cast<int>(out.shape.size()); ++i) shape[i] = out.shape[i];
    return 0;
  });
}

int hvd_handle_received_splits(hvd_handle* h, int64_t* splits, int max_count) {
  return guarded([&] {
    if (!h) throw hvd::Error("hvd_handle_received_splits: null handle");
    const auto& s = h->handle.received_splits();
    for (int i = 0; splits && i < max_count && i < static_cast<int>(s.size()); ++i) splits[i] = s[i];
    return static_cast<int>(s.size());
  });
}

void hvd_handle_release(hvd_handle* h) { delete h; }

}  // extern "C"
