#include "tests/cases/execute.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <exception>
#include <functional>
#include <memory>
#include <numeric>
#include <random>
#include <sstream>

#include "hvd/hvd.h"
#include "tests/cases/expectation.h"
#include "tests/cases/reference.h"
#include "tests/workers/element_codec.h"

namespace hvd::cases {
namespace {

using Failures = std::vector<std::string>;

// A tensor this rank owns for the op's lifetime (libhvd holds views of it until the handle completes).
struct Buffer {
  DataType dtype = DataType::kFloat32;
  Shape shape;
  std::vector<std::byte> bytes;

  Buffer(DataType d, const std::vector<std::int64_t>& dims) : dtype(d), shape(dims.begin(), dims.end()) {
    bytes.resize(std::max<std::size_t>(1, static_cast<std::size_t>(elements()) * size_of(d)));
  }
  std::int64_t elements() const {
    std::int64_t n = 1;
    for (auto d : shape) n *= d;
    return n;
  }
  TensorView view() { return {bytes.data(), dtype, shape, Device::cpu()}; }
};

std::string number(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

// Compares `got` with the expected values; reports the first three elements that differ.
void compare(const std::string& label, const void* got, DataType dtype, std::int64_t count, const Values& want,
             Failures& failures) {
  if (count != static_cast<std::int64_t>(want.values.size())) {
    failures.push_back(label + ": " + std::to_string(count) + " elements, want " + std::to_string(want.values.size()));
  }
  int reported = 0;
  for (std::int64_t i = 0; i < std::min<std::int64_t>(count, want.values.size()) && reported < 3; ++i) {
    const double value = want.values[i], bound = want.bounds.empty() ? 0.0 : want.bounds[i];
    const double g = test::get(got, dtype, static_cast<std::size_t>(i));
    if (std::fabs(g - value) <= bound) continue;
    failures.push_back(label + ": element " + std::to_string(i) + " is " + number(g) + ", want " + number(value) +
                       (bound > 0 ? " (within " + number(bound) + ")" : ""));
    ++reported;
  }
}

void check_shape(const std::string& label, const Shape& got, const std::vector<std::int64_t>& want,
                 Failures& failures) {
  if (std::vector<std::int64_t>(got.begin(), got.end()) == want) return;
  auto text = [](auto dims) {
    std::string s = "[";
    for (std::size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
    return s + "]";
  };
  failures.push_back(label + ": output shape " + text(got) + ", want " + text(want));
}

// One op of the step on this rank: submitted first, finished (waited for and checked) after every op is submitted.
struct Prepared {
  std::function<void()> submit;
  std::function<void(Failures&)> finish;
  bool blocking = false;  // submit() returns only once the op is done on every rank
};

void expect_error(const std::string& label, const OpExpectation& e, const std::exception_ptr& thrown, Failures& failures) {
  if (!thrown) return failures.push_back(label + ": returned a result, want an hvd::Error (" + e.phrase + ")");
  try {
    std::rethrow_exception(thrown);
  } catch (const Error& error) {
    const std::string what = error.what();
    if (error.kind() != e.kind) {
      failures.push_back(label + ": error kind " + std::to_string(static_cast<int>(error.kind())) + ", want " +
                         std::to_string(static_cast<int>(e.kind)) + ": " + what);
    } else if (what.find(e.phrase) == std::string::npos) {
      failures.push_back(label + ": error does not name '" + e.phrase + "': " + what);
    }
  } catch (const std::exception& other) {
    failures.push_back(label + ": threw a non-hvd exception: " + std::string(other.what()));
  }
}

// Ties an op's handle to the expectation: a result is checked by `check`, an error by the expectation.
Prepared prepared(const std::string& label, const OpExpectation& expect, std::function<Handle()> start,
                  std::function<void(const Handle&, Failures&)> check) {
  auto handle = std::make_shared<Handle>();
  auto thrown = std::make_shared<std::exception_ptr>();
  return {[=] {
            try {
              *handle = start();
            } catch (...) {
              *thrown = std::current_exception();
            }
          },
          [=](Failures& failures) {
            if (!*thrown && handle->valid()) {
              try {
                handle->wait();
              } catch (...) {
                *thrown = std::current_exception();
              }
            }
            if (expect.error) return expect_error(label, expect, *thrown, failures);
            if (*thrown) {
              try {
                std::rethrow_exception(*thrown);
              } catch (const std::exception& e) {
                return failures.push_back(label + ": failed: " + e.what());
              }
            }
            check(*handle, failures);
          }};
}

void fill(Buffer& buffer, const Values& values) {
  for (std::size_t i = 0; i < values.values.size(); ++i) test::put(buffer.bytes.data(), buffer.dtype, i, values.values[i]);
}

struct OpScope {
  const OpSpec& written;
  const OpSpec& seen;  // as this rank sees it (as_seen_by)
  std::string name, label;
  int rank = 0, size = 1;
  std::int32_t set_id = 0;
};

// Any op but barrier and join: its inputs and expectation from expectation.h, submitted through libhvd.
Prepared collective_op(const OpScope& s) {
  const OpInputs in = inputs_of(s.seen, s.rank, s.size);
  auto want = std::make_shared<OpExpectation>(expected_of(s.written, s.rank, s.size));
  auto inputs = std::make_shared<std::vector<Buffer>>(), outputs = std::make_shared<std::vector<Buffer>>();
  for (const auto& t : in.tensors) {
    inputs->emplace_back(in.dtype, t.shape);
    fill(inputs->back(), t);
    outputs->emplace_back(in.dtype, t.shape);
  }
  const OpSpec& op = s.seen;
  const std::string kind = op.kind;
  const bool in_place = op.integer("inplace", 0) != 0;
  const std::string name = s.name;
  const std::int32_t set = s.set_id;
  const std::vector<std::int64_t> splits = in.splits;
  const ReduceOp red = op.has("red") ? reduce_op_named(op.text("red")) : ReduceOp::kSum;
  const double pre = op.number("pre", 1), post = op.number("post", 1);
  const int root = static_cast<int>(op.integer("root", 0));
  auto start = [=]() -> Handle {
    std::vector<TensorView> views, outs;
    for (std::size_t t = 0; t < inputs->size(); ++t) {
      views.push_back((*inputs)[t].view());
      outs.push_back(in_place ? (*inputs)[t].view() : (*outputs)[t].view());
    }
    if (kind == "allreduce") return allreduce_async(views[0], outs[0], {red, pre, post, name, set});
    if (kind == "grouped_allreduce") return grouped_allreduce_async(views, outs, {red, pre, post, name, set});
    if (kind == "reducescatter") return reducescatter_async(views[0], {red, name, {}, set});
    if (kind == "allgather") return allgather_async(views[0], {name, {}, set});
    if (kind == "broadcast") return broadcast_async(views[0], {root, name, set});
    if (kind == "alltoall") return alltoall_async(views[0], {splits, name, {}, set});
    throw std::invalid_argument("no op kind '" + kind + "'");
  };
  const std::string label = s.label;
  auto check = [=](const Handle& handle, Failures& failures) {
    if (kind == "allreduce" || kind == "grouped_allreduce" || kind == "broadcast") {
      for (std::size_t t = 0; t < want->outputs.size(); ++t) {
        const Buffer& result = in_place || kind == "broadcast" ? (*inputs)[t] : (*outputs)[t];
        compare(label + (kind == "grouped_allreduce" ? " tensor " + std::to_string(t) : ""), result.bytes.data(),
                result.dtype, result.elements(), want->outputs[t], failures);
      }
      return;
    }
    const TensorView& out = handle.output();
    check_shape(label, out.shape, want->outputs[0].shape, failures);
    if (kind == "alltoall" && handle.received_splits() != want->received_splits) {
      failures.push_back(label + ": received splits differ");
    }
    compare(label, out.data, out.dtype, out.num_elements(), want->outputs[0], failures);
  };
  return prepared(label, *want, start, check);
}

Prepared barrier_op(const OpScope& s) {
  auto thrown = std::make_shared<std::exception_ptr>();
  const std::int32_t set = s.set_id;
  const bool member = inputs_of(s.seen, s.rank, s.size).member;
  const std::string label = s.label;
  return {[=] {
            try {
              barrier(set);
            } catch (...) {
              *thrown = std::current_exception();
            }
          },
          [=](Failures& failures) {
            if (!member) return expect_error(label, OpExpectation{true, ErrorKind::kUsage, "process set", {}, {}}, *thrown, failures);
            if (!*thrown) return;
            try {
              std::rethrow_exception(*thrown);
            } catch (const std::exception& e) {
              failures.push_back(label + ": failed: " + e.what());
            }
          },
          true};
}

// join: rank `late` runs one more op while every other rank has joined (an allreduce gets zeros from them; the
// ops a joined rank cannot take part in must fail naming the joined ranks), then joins; every join returns `late`.
void run_join(const OpSpec& op, const RunContext& c, const std::string& label, Failures& failures) {
  const int late = static_cast<int>(op.integer("late", 0));
  const std::string after = op.text_or("after", "allreduce");
  if (c.rank == late) {
    const TensorInput in{static_cast<std::uint64_t>(op.integer("seed", 1)), 0, dtype_named(op.text("dtype")),
                         ValueDomain::kReduce};
    Values mine{parse_shape(op.text("shape")), {}, {}};
    Buffer tensor(in.dtype, mine.shape);
    for (std::int64_t i = 0; i < tensor.elements(); ++i) mine.values.push_back(input_value(in, c.rank, i));
    fill(tensor, mine);
    try {
      if (after == "allreduce") {  // the joined ranks add zeros: its own tensor back
        allreduce(tensor.view(), tensor.view(), {ReduceOp::kSum, 1, 1, "c" + std::to_string(c.case_index) + ".join"});
        compare(label + " allreduce after the others joined", tensor.bytes.data(), in.dtype, tensor.elements(), mine,
                failures);
      } else {
        const std::string n = "c" + std::to_string(c.case_index) + ".join";
        std::exception_ptr thrown;
        try {
          if (after == "allgather") {
            AllgatherOptions options;
            options.name = n;
            allgather(tensor.view(), options);
          }
          if (after == "broadcast") broadcast(tensor.view(), {late, n});
          if (after == "alltoall") {  // every row to itself: only the joined ranks make it fail
            std::vector<std::int64_t> splits(c.size, 0);
            splits[c.rank] = tensor.shape.empty() ? 1 : tensor.shape[0];
            AlltoallOptions options;
            options.splits = splits;
            options.name = n;
            alltoall(tensor.view(), options);
          }
        } catch (...) {
          thrown = std::current_exception();
        }
        expect_error(label + " " + after + " after the others joined", OpExpectation{true, ErrorKind::kUsage, "joined", {}, {}}, thrown,
                     failures);
      }
    } catch (const std::exception& e) {
      failures.push_back(label + ": " + after + " failed: " + e.what());
    }
  }
  const int last = join();
  if (last != late) failures.push_back(label + ": join returned " + std::to_string(last) + ", want " + std::to_string(late));
}

}  // namespace

std::vector<std::vector<int>> process_sets_of(const std::vector<CaseSpec>& cases, int size) {
  std::vector<std::vector<int>> sets;
  for (const auto& c : cases) {
    for (const auto& op : c.ops) {
      if (op.text_or("set", "all") == "all") continue;
      auto ranks = members_of(op, size);
      if (std::find(sets.begin(), sets.end(), ranks) == sets.end()) sets.push_back(ranks);
    }
  }
  return sets;
}

std::vector<std::string> run_case(const CaseSpec& spec, const RunContext& c) {
  Failures failures;
  std::vector<Prepared> steps;
  for (std::size_t k = 0; k < spec.ops.size(); ++k) {
    const OpSpec& written = spec.ops[k];
    const std::string name = "c" + std::to_string(c.case_index) + "." + std::to_string(k);
    const std::string label = "op " + std::to_string(k) + " " + written.kind + " '" + name + "' " +
                              written.text_or("dtype", "");
    try {
      if (written.kind == "join") {
        run_join(written, c, label, failures);
        continue;
      }
      const auto members = members_of(written, c.size);
      const OpSpec seen = as_seen_by(written, c.rank, c.size);
      const bool member = std::find(members.begin(), members.end(), c.rank) != members.end();
      if (!member && written.integer("outsider", 0) == 0) continue;  // not its op
      const bool global = written.text_or("set", "all") == "all";
      const OpScope scope{written, seen, name, label, c.rank, c.size, global ? 0 : c.set_ids.at(members)};
      steps.push_back(written.kind == "barrier" ? barrier_op(scope) : collective_op(scope));
    } catch (const std::exception& e) {
      failures.push_back(label + ": malformed: " + e.what());
    }
  }
  // Asynchronous ops in this rank's order; blocking ones (barrier) after them in the written order, since two
  // blocking calls in different orders on two ranks wait for each other for ever, in any implementation.
  std::vector<std::size_t> order, blocking;
  for (std::size_t k = 0; k < steps.size(); ++k) (steps[k].blocking ? blocking : order).push_back(k);
  if (spec.shuffled) {
    std::mt19937_64 random(spec.seed * 7919u + static_cast<std::uint64_t>(c.rank));
    std::shuffle(order.begin(), order.end(), random);
  }
  order.insert(order.end(), blocking.begin(), blocking.end());
  for (auto k : order) steps[k].submit();
  for (auto k : order) steps[k].finish(failures);
  return failures;
}

}  // namespace hvd::cases
