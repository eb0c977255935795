#include "runtime/api/argument_checks.h"

#include <cmath>
#include <limits>

#include "hvd/error.h"
#include "runtime/engine/message.h"
#include "runtime/reduce/reduce.h"
#include "runtime/reduce/types_check.h"

namespace hvd::detail {
namespace {

[[noreturn]] void fail(const CallSite& at, const std::string& what) {
  throw Error(ErrorKind::kUsage, at.describe() + ": " + what, {.tensor = at.name});
}

std::string ranks_phrase(int size) {
  return size == 1 ? "the job has 1 rank, 0"
                   : "the job has " + std::to_string(size) + " ranks, 0-" + std::to_string(size - 1);
}

}  // namespace

std::string CallSite::describe() const { return std::string(op) + (name.empty() ? " (unnamed)" : " '" + name + "'"); }

void check_tensor(const TensorView& t, const CallSite& at, const char* which) {
  // Built only for a message: this runs for every tensor of every step.
  const auto arg = [which] { return std::string("the ") + which; };
  if (!is_valid(t.dtype)) {
    fail(at, arg() + "'s dtype " + std::to_string(static_cast<int>(t.dtype)) +
                 " is not a hvd::DataType; use one of its values (kUInt8 ... kBool)");
  }
  if (!is_valid(t.device.kind)) {
    fail(at, arg() + "'s device kind " + std::to_string(static_cast<int>(t.device.kind)) +
                 " is neither CPU nor GPU; use Device::cpu() or Device::gpu(index)");
  }
  // Whether a GPU tensor can run (a device, NCCL in this build) is the GPU backend's answer, on the handle.
  if (t.device.is_gpu() && t.device.index < 0) {
    fail(at, arg() + " is a GPU tensor without a device index (" + std::to_string(t.device.index) +
                 "); use Device::gpu(index)");
  }
  // Elements times the element size must fit in a signed 64-bit byte count, or sizes wrap downstream.
  const std::int64_t limit = std::numeric_limits<std::int64_t>::max() / static_cast<std::int64_t>(size_of(t.dtype));
  std::int64_t elements = 1;
  for (auto d : t.shape) {
    if (d < 0) fail(at, arg() + " has a negative dimension in " + shape_string(t.shape));
    if (d != 0 && elements > limit / d) {
      fail(at, arg() + "'s shape " + shape_string(t.shape) + " has more elements than memory can hold");
    }
    elements *= d;
  }
  if (!t.data && elements > 0) {
    fail(at, arg() + " has no data pointer but " + std::to_string(elements) + " elements; pass its memory");
  }
}

void check_output_matches(const TensorView& in, const TensorView& out, const CallSite& at) {
  if (in.device.kind != out.device.kind || in.device.index != out.device.index) {
    fail(at, "the output must be on the input's device");
  }
  if (in.dtype != out.dtype || in.num_elements() != out.num_elements()) {
    fail(at, std::string("the output (") + name_of(out.dtype) + " " + shape_string(out.shape) +
                 ") must match the input (" + name_of(in.dtype) + " " + shape_string(in.shape) + ")");
  }
}

void check_has_rows(const TensorView& t, const CallSite& at) {
  if (t.shape.empty()) fail(at, "a scalar has no first dimension to split or concatenate; reshape it to [1]");
}

void check_reduction(ReduceOp op, bool is_reducescatter, DataType dtype, double prescale, double postscale,
                     const CallSite& at) {
  if (!is_valid(op)) {
    fail(at, "reduce op " + std::to_string(static_cast<int>(op)) +
                 " is not a hvd::ReduceOp; use kSum, kAverage, kMin, kMax, kProduct or kAdasum");
  }
  if (op == ReduceOp::kAdasum && is_reducescatter) fail(at, "adasum works only with allreduce; use sum or average");
  if (op == ReduceOp::kAdasum && !is_floating(dtype)) {
    fail(at, std::string("adasum needs a floating-point tensor, not ") + name_of(dtype) + "; cast to float32");
  }
  if (!std::isfinite(prescale) || !std::isfinite(postscale)) {
    fail(at, "scale factors must be finite numbers (prescale " + std::to_string(prescale) + ", postscale " +
                 std::to_string(postscale) + ")");
  }
  if (dtype == DataType::kBool && (op == ReduceOp::kAverage || prescale != 1.0 || postscale != 1.0)) {
    fail(at, "average and scale factors are not defined for bool; use sum (logical or), min or max");
  }
}

void check_root(int root, int size, const CallSite& at) {
  if (root < 0 || root >= size)
    fail(at, "root " + std::to_string(root) + " is not a rank (" + ranks_phrase(size) + ")");
}

int root_in_set(int root, const std::vector<int>& ranks, std::int32_t set, const CallSite& at) {
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    if (ranks[i] == root) return static_cast<int>(i);
  }
  std::string list;
  for (int r : ranks) list += (list.empty() ? "" : ", ") + std::to_string(r);
  fail(at, "root " + std::to_string(root) + " is not in process set " + std::to_string(set) + " (ranks [" + list +
               "]); pass one of the set's ranks (a rank of the job)");
}

void check_splits(const std::vector<std::int64_t>& splits, std::int64_t rows, int size, const CallSite& at) {
  if (splits.empty()) {
    if (rows % size != 0) {
      fail(at, std::to_string(rows) + " rows do not divide into " + std::to_string(size) + " equal parts; pass splits");
    }
    return;
  }
  if (static_cast<int>(splits.size()) != size) {
    fail(at, std::to_string(splits.size()) + " splits " + shape_string(splits) + " for " + std::to_string(size) +
                 " ranks; pass one split per rank");
  }
  std::int64_t sum = 0;
  for (auto s : splits) {
    if (s < 0) fail(at, "a negative split in " + shape_string(splits) + "; splits count rows");
    if (s > rows - sum) {
      fail(at, "splits " + shape_string(splits) + " add up to more than the first dimension, " + std::to_string(rows));
    }
    sum += s;
  }
  if (sum != rows) {
    fail(at, "splits " + shape_string(splits) + " add up to " + std::to_string(sum) + ", but the first dimension is " +
                 std::to_string(rows) + "; the splits must add up to it");
  }
}

}  // namespace hvd::detail
