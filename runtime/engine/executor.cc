#include "runtime/engine/executor.h"

#include <algorithm>
#include <cstring>
#include <numeric>

#include "hvd/error.h"
#include "runtime/engine/layout.h"
#include "runtime/engine/scale.h"
#include "runtime/reduce/reduce.h"

namespace hvd::detail {
namespace {

bool is_integer(DataType d) { return !is_floating(d) && d != DataType::kBool; }

// Average and postscale in one pass where the dtype allows it.
double finish_factor(const Response& r, int size) {
  if (r.reduce_op == ReduceOp::kAverage && !is_integer(r.dtype)) return r.postscale / size;
  return r.postscale;
}
void finish_in_place(const Response& r, void* data, std::size_t n, int size) {
  if (r.reduce_op == ReduceOp::kAverage && is_integer(r.dtype)) divide(data, n, r.dtype, size);
}

ReduceOp wire_op(ReduceOp op) { return op == ReduceOp::kAverage ? ReduceOp::kSum : op; }

}  // namespace

Executor::Executor(Communicator& comm, TensorQueue& queue)
    : comm_(comm), queue_(queue), rank_(comm.topology().rank), size_(comm.topology().size) {}

template <typename F>
void Executor::data_plane(F&& f) {
  try {
    f();
  } catch (...) {
    throw DataPlaneBroken{std::current_exception()};
  }
}

std::uint8_t* Executor::fusion(std::size_t bytes) {
  if (fusion_.size() < bytes) fusion_.resize(bytes);
  return fusion_.data();
}

std::uint8_t* Executor::scratch(std::size_t bytes) {
  if (scratch_.size() < bytes) scratch_.resize(bytes);
  return scratch_.data();
}

std::uint8_t* Executor::zeros(std::size_t bytes) {
  if (zeros_.size() < bytes) zeros_.resize(bytes);
  std::memset(zeros_.data(), 0, bytes);
  return zeros_.data();
}

void* Executor::output_for(TensorEntry* e, DataType dtype, const Shape& shape, Outcome& out,
                           std::vector<std::uint8_t>& fallback) {
  std::size_t bytes = static_cast<std::size_t>(num_elements(shape)) * size_of(dtype);
  if (e && !out.error) {
    try {
      void* p;
      if (e->allocate) {
        p = e->allocate(dtype, shape);
        if (!p && bytes > 0)
          throw Error(ErrorKind::kUsage, "the output allocator returned null for " + shape_string(shape));
      } else {
        e->handle->owned_output.resize(bytes);
        p = e->handle->owned_output.data();
      }
      e->handle->output = TensorView{p, dtype, shape, e->input.device};
      return p;
    } catch (...) {
      out.error = std::current_exception();
    }
  }
  if (fallback.size() < bytes) fallback.resize(bytes);
  return fallback.data();
}

void Executor::execute(const Response& r) {
  Entries& es = entries_;
  queue_.take(r.names, es);
  auto complete = [&](std::exception_ptr error) {
    for (auto& e : es) {
      if (!e) continue;
      if (r.type == OpType::kJoin) e->handle->last_joined_rank = r.last_joined_rank;
      e->handle->complete_one(error);
    }
  };
  if (!r.error.empty()) {
    // The peer is the rank at fault (a mismatch's odd one out, a stalled rank): whom this rank's failure is down to.
    complete(std::make_exception_ptr(Error(r.error_kind, r.error,
                                           {.peer = r.blame.empty() ? -1 : static_cast<int>(r.blame.front()),
                                            .tensor = r.names.size() == 1 ? r.names[0] : ""})));
    es.clear();
    return;
  }
  Outcome out;
  try {
    run(r, es, out);
  } catch (const DataPlaneBroken& broken) {
    complete(broken.error);
    es.clear();
    throw;
  }
  complete(out.error);
  es.clear();
}

void Executor::run(const Response& r, Entries& es, Outcome& out) {
  switch (r.type) {
    case OpType::kAllreduce:
      if (r.reduce_op == ReduceOp::kAdasum)
        adasum(r, es, out);
      else
        allreduce(r, es, out);
      break;
    case OpType::kReducescatter:
      reducescatter(r, es, out);
      break;
    case OpType::kAllgather:
      allgather(r, es, out);
      break;
    case OpType::kBroadcast:
      broadcast(r, es, out);
      break;
    case OpType::kAlltoall:
      alltoall(r, es, out);
      break;
    case OpType::kBarrier:  // every rank submitted before the coordinator answered: that is the barrier
    case OpType::kJoin:
      break;
  }
}

// One tensor in its own output buffer; several either as the one span they already form or buffer by buffer.
void Executor::allreduce(const Response& r, Entries& es, Outcome&) {
  if (es.size() == 1) {
    const std::size_t n = static_cast<std::size_t>(num_elements(r.shapes[0]));
    void* buf = es[0] ? es[0]->output.data : zeros(n * size_of(r.dtype));
    if (es[0]) scale_copy(es[0]->input.data, buf, n, r.dtype, r.prescale);
    reduce_in_place(r, buf, n);
  } else if (void* base = contiguous_span(r, es)) {
    std::size_t total = 0;
    for (const auto& shape : r.shapes) total += static_cast<std::size_t>(num_elements(shape));
    reduce_in_place(r, base, total);
  } else {
    allreduce_each_buffer(r, es);
  }
}

// The reduction itself and what follows it (average, postscale) over `n` elements at `data`.
void Executor::reduce_in_place(const Response& r, void* data, std::size_t n) {
  if (n == 0) return;
  data_plane([&] { comm_.allreduce(data, n, r.dtype, wire_op(r.reduce_op)); });
  finish_in_place(r, data, n, size_);
  scale_copy(data, data, n, r.dtype, finish_factor(r, size_));
}

// Tensors that already lie back to back, in place (a framework's flat gradient buffer), need no packing: the base
// of that span, else null.
void* Executor::contiguous_span(const Response& r, const Entries& es) const {
  if (r.prescale != 1.0) return nullptr;
  const std::size_t dsize = size_of(r.dtype);
  for (std::size_t i = 0; i < es.size(); ++i) {
    if (!es[i] || es[i]->input.data != es[i]->output.data) return nullptr;
    if (i > 0 && static_cast<std::uint8_t*>(es[i - 1]->output.data) +
                         static_cast<std::size_t>(num_elements(r.shapes[i - 1])) * dsize !=
                     es[i]->output.data)
      return nullptr;
  }
  return es[0]->output.data;
}

// Each tensor reduced in its own output buffer (prescaled there first), without a fusion buffer: the communicator
// reads and writes the buffers as one. Joined ranks contribute zeros from one scratch area.
void Executor::allreduce_each_buffer(const Response& r, Entries& es) {
  const std::size_t dsize = size_of(r.dtype);
  std::size_t joined = 0, total = 0;
  for (std::size_t i = 0; i < es.size(); ++i) {
    const auto n = static_cast<std::size_t>(num_elements(r.shapes[i]));
    total += n;
    if (!es[i]) joined += n;
  }
  std::uint8_t* zero = joined ? zeros(joined * dsize) : nullptr;
  buffers_.clear();
  for (std::size_t i = 0; i < es.size(); ++i) {
    const auto n = static_cast<std::size_t>(num_elements(r.shapes[i]));
    if (es[i]) {
      scale_copy(es[i]->input.data, es[i]->output.data, n, r.dtype, r.prescale);
      buffers_.push_back({es[i]->output.data, n});
    } else {
      buffers_.push_back({zero, n});
      zero += n * dsize;
    }
  }
  if (total == 0) return;
  data_plane([&] { comm_.allreduce_buffers(buffers_, r.dtype, wire_op(r.reduce_op)); });
  const double post = finish_factor(r, size_);
  for (std::size_t i = 0; i < es.size(); ++i) {
    if (!es[i]) continue;
    finish_in_place(r, buffers_[i].data, buffers_[i].count, size_);
    scale_copy(buffers_[i].data, buffers_[i].data, buffers_[i].count, r.dtype, post);
  }
}

void Executor::adasum(const Response& r, Entries& es, Outcome&) {
  for (std::size_t i = 0; i < es.size(); ++i) {
    std::size_t n = static_cast<std::size_t>(num_elements(r.shapes[i]));
    void* buf = es[i] ? es[i]->output.data : zeros(n * size_of(r.dtype));
    if (es[i]) scale_copy(es[i]->input.data, buf, n, r.dtype, r.prescale);
    if (n) data_plane([&] { comm_.adasum(buf, n, r.dtype); });
    if (es[i]) scale_copy(buf, buf, n, r.dtype, r.postscale);
  }
}

// Rank q receives, of every tensor in order, its rows for q (first_row/rows_of, layout.h).
Executor::ScatterLayout Executor::scatter_layout(const Response& r) const {
  ScatterLayout l;
  l.row_elems.resize(r.shapes.size());
  l.counts.assign(static_cast<std::size_t>(size_), 0);
  for (std::size_t i = 0; i < r.shapes.size(); ++i) {
    l.row_elems[i] = num_elements(tail(r.shapes[i]));
    l.total += static_cast<std::size_t>(num_elements(r.shapes[i]));
    for (int q = 0; q < size_; ++q)
      l.counts[q] += static_cast<std::size_t>(rows_of(r.shapes[i][0], q, size_) * l.row_elems[i]);
  }
  return l;
}

void Executor::reducescatter(const Response& r, Entries& es, Outcome& out) {
  const ScatterLayout l = scatter_layout(r);
  const std::size_t k = es.size();
  // Outputs first: the allocator may fail, and this rank must take part all the same.
  std::vector<void*> outs(k);
  std::vector<std::vector<std::uint8_t>> fallbacks(k);  // joined rank or failed allocator: results go nowhere
  for (std::size_t i = 0; i < k; ++i) {
    auto shape = r.shapes[i];
    shape[0] = rows_of(shape[0], rank_, size_);
    outs[i] = output_for(es[i] ? &*es[i] : nullptr, r.dtype, shape, out, fallbacks[i]);
  }
  if (l.total == 0) return;
  const bool direct = k == 1 && es[0] && r.prescale == 1.0;
  const void* in = direct ? es[0]->input.data : pack_for_scatter(r, es, l);
  const std::size_t mine = l.counts[rank_];
  void* result = k == 1 ? outs[0] : scratch(mine * size_of(r.dtype));
  data_plane([&] { comm_.reducescatter(in, result, l.counts, r.dtype, wire_op(r.reduce_op)); });
  finish_in_place(r, result, mine, size_);
  const double post = finish_factor(r, size_);
  if (k == 1) {
    scale_copy(result, result, mine, r.dtype, post);
    return;
  }
  std::size_t off = 0;
  for (std::size_t i = 0; i < k; ++i) {
    std::size_t n = static_cast<std::size_t>(rows_of(r.shapes[i][0], rank_, size_) * l.row_elems[i]);
    if (es[i]) scale_copy(static_cast<std::uint8_t*>(result) + off, outs[i], n, r.dtype, post);
    off += n * size_of(r.dtype);
  }
}

// Packs the tensors (prescaled) so that rank q's block holds every tensor's rows for q, in tensor order; a joined
// rank's part is zeros.
const void* Executor::pack_for_scatter(const Response& r, const Entries& es, const ScatterLayout& l) {
  const std::size_t dsize = size_of(r.dtype);
  std::uint8_t* buf = fusion(l.total * dsize);
  std::size_t off = 0;
  for (int q = 0; q < size_; ++q) {
    for (std::size_t i = 0; i < es.size(); ++i) {
      std::size_t n = static_cast<std::size_t>(rows_of(r.shapes[i][0], q, size_) * l.row_elems[i]);
      std::size_t from = static_cast<std::size_t>(first_row(r.shapes[i][0], q, size_) * l.row_elems[i]);
      if (es[i])
        scale_copy(static_cast<const std::uint8_t*>(es[i]->input.data) + from * dsize, buf + off, n, r.dtype,
                   r.prescale);
      else if (n)
        std::memset(buf + off, 0, n * dsize);
      off += n * dsize;
    }
  }
  return buf;
}

void Executor::allgather(const Response& r, Entries& es, Outcome& out) {
  const AllgatherLayout l = allgather_layout(r, size_);
  void* o = output_for(es[0] ? &*es[0] : nullptr, r.dtype, l.output_shape, out, scratch_);
  const void* in = es[0] ? es[0]->input.data : nullptr;
  if (l.empty) return;
  data_plane([&] { comm_.allgatherv(in, o, l.bytes); });
}

void Executor::broadcast(const Response& r, Entries& es, Outcome&) {
  std::size_t bytes = static_cast<std::size_t>(num_elements(r.shapes[0])) * size_of(r.dtype);
  void* data = es[0] ? es[0]->output.data : zeros(bytes);
  if (es[0] && es[0]->input.data != data && rank_ == r.root) std::memcpy(data, es[0]->input.data, bytes);
  if (bytes == 0) return;
  data_plane([&] { comm_.broadcast(data, bytes, r.root); });
}

void Executor::alltoall(const Response& r, Entries& es, Outcome& out) {
  AlltoallLayout l = alltoall_layout(r, rank_, size_);
  void* o = output_for(es[0] ? &*es[0] : nullptr, r.dtype, l.output_shape, out, scratch_);
  if (es[0]) es[0]->handle->received_splits = std::move(l.received_rows);
  if (l.empty) return;
  data_plane([&] { comm_.alltoallv(es[0]->input.data, l.send_bytes, o, l.recv_bytes); });
}

}  // namespace hvd::detail
