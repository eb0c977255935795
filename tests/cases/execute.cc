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

DataType dtype_named(const std::string& name) {
  for (int d = 0; d <= static_cast<int>(DataType::kBool); ++d) {
    if (name == name_of(static_cast<DataType>(d))) return static_cast<DataType>(d);
  }
  throw std::invalid_argument("no dtype named '" + name + "'");
}

ReduceOp reduce_op_named(const std::string& name) {
  for (int r = 0; r <= static_cast<int>(ReduceOp::kAdasum); ++r) {
    if (name == name_of(static_cast<ReduceOp>(r))) return static_cast<ReduceOp>(r);
  }
  throw std::invalid_argument("no reduce op named '" + name + "'");
}

std::vector<int> members_of(const OpSpec& op, int size) {
  if (op.text_or("set", "all") == "all") {
    std::vector<int> all(size);
    std::iota(all.begin(), all.end(), 0);
    return all;
  }
  std::vector<int> ranks;
  for (auto r : op.integers("set")) ranks.push_back(static_cast<int>(r));
  return ranks;
}

int position_in(const std::vector<int>& members, int rank) {
  const auto it = std::find(members.begin(), members.end(), rank);
  return it == members.end() ? -1 : static_cast<int>(it - members.begin());
}

std::string number(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

std::vector<std::int64_t> with_rows(std::int64_t rows, const std::vector<std::int64_t>& tail) {
  std::vector<std::int64_t> shape{rows};
  shape.insert(shape.end(), tail.begin(), tail.end());
  return shape;
}

std::int64_t product(const std::vector<std::int64_t>& dims) {
  std::int64_t n = 1;
  for (auto d : dims) n *= d;
  return n;
}

// Compares `count` elements of `got` with want(i) (value, tolerance); reports the first three that differ.
void compare(const std::string& label, const void* got, DataType dtype, std::int64_t count,
             const std::function<std::pair<double, double>(std::int64_t)>& want, Failures& failures) {
  int reported = 0;
  for (std::int64_t i = 0; i < count && reported < 3; ++i) {
    const auto [value, bound] = want(i);
    const double g = test::get(got, dtype, static_cast<std::size_t>(i));
    const bool same = std::isnan(value) ? std::isnan(g) : std::fabs(g - value) <= bound;
    if (!same) {
      failures.push_back(label + ": element " + std::to_string(i) + " is " + number(g) + ", want " + number(value) +
                         (bound > 0 ? " (within " + number(bound) + ")" : ""));
      ++reported;
    }
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

// What an op must end in instead of a result: a mismatch every member sees, or a usage error at the call.
struct Expectation {
  bool error = false;
  ErrorKind kind = ErrorKind::kInternal;
  std::string must_name;  // a phrase the message must hold
};

void expect_error(const std::string& label, const Expectation& e, const std::exception_ptr& thrown, Failures& failures) {
  if (!thrown) return failures.push_back(label + ": returned a result, want an hvd::Error (" + e.must_name + ")");
  try {
    std::rethrow_exception(thrown);
  } catch (const Error& error) {
    const std::string what = error.what();
    if (error.kind() != e.kind) {
      failures.push_back(label + ": error kind " + std::to_string(static_cast<int>(error.kind())) + ", want " +
                         std::to_string(static_cast<int>(e.kind)) + ": " + what);
    } else if (what.find(e.must_name) == std::string::npos) {
      failures.push_back(label + ": error does not name '" + e.must_name + "': " + what);
    }
  } catch (const std::exception& other) {
    failures.push_back(label + ": threw a non-hvd exception: " + std::string(other.what()));
  }
}

// Ties an op's handle to the expectation: a result is checked by `check`, an error by the expectation.
Prepared prepared(const std::string& label, const Expectation& expect, std::function<Handle()> start,
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

// A rank told to disagree (mismatch=<field> odd=<rank>) changes that field of its own copy of the op.
OpSpec as_seen_by(const OpSpec& op, int rank, const std::vector<int>& members) {
  if (!op.has("mismatch") || op.integer("odd", -1) != rank) return op;
  OpSpec mine = op;
  const std::string field = op.text("mismatch");
  if (field == "dtype") {
    mine.fields["dtype"] = op.text("dtype") == "float32" ? "float64" : "float32";
  } else if (field == "shape") {
    const std::string key = op.has("tail") ? "tail" : op.has("rows") ? "rows" : op.has("shapes") ? "shapes" : "shape";
    if (key == "rows") {
      mine.fields[key] = std::to_string(op.integer("rows", 0) + 1);
    } else {
      const std::string first = op.text(key).substr(0, op.text(key).find(','));  // a grouped op: its first tensor
      auto dims = parse_shape(first);
      if (dims.empty()) dims.push_back(1);
      dims.back() += 1;
      std::string text;
      for (std::size_t i = 0; i < dims.size(); ++i) text += (i ? "x" : "") + std::to_string(dims[i]);
      mine.fields[key] = text + op.text(key).substr(first.size());
    }
  } else if (field == "red") {
    mine.fields["red"] = op.text("red") == "sum" ? "max" : "sum";
  } else if (field == "root") {
    const int at = position_in(members, static_cast<int>(op.integer("root", 0)));
    mine.fields["root"] = std::to_string(members[(at + 1) % members.size()]);
  }
  return mine;
}

Expectation expectation_of(const OpSpec& op, bool member, const std::string& name) {
  if (!member) return {true, ErrorKind::kUsage, "process set"};
  if (op.has("mismatch")) return {true, ErrorKind::kMismatch, "rank " + op.text("odd")};
  (void)name;
  return {};
}

TensorInput input_of(const OpSpec& op, ValueDomain domain, int tensor = 0) {
  return {static_cast<std::uint64_t>(op.integer("seed", 1)), tensor, dtype_named(op.text("dtype")), domain};
}

ValueDomain domain_of(ReduceOp op) { return op == ReduceOp::kProduct ? ValueDomain::kProduct : ValueDomain::kReduce; }

void fill(Buffer& buffer, const TensorInput& in, int rank, std::int64_t offset = 0) {
  for (std::int64_t i = 0; i < buffer.elements(); ++i) {
    test::put(buffer.bytes.data(), buffer.dtype, static_cast<std::size_t>(i), input_value(in, rank, offset + i));
  }
}

struct OpScope {
  const OpSpec& op;  // as this rank sees it
  std::string name, label;
  std::vector<int> members;
  int rank = 0, position = -1;
  std::int32_t set_id = 0;
};

Prepared allreduce_op(const OpScope& s, bool grouped) {
  const ReduceOp red = reduce_op_named(s.op.text("red"));
  const Reduction reduction{red, s.op.number("pre", 1), s.op.number("post", 1)};
  std::vector<std::vector<std::int64_t>> shapes;
  if (grouped) {
    std::string all = s.op.text("shapes");
    std::size_t start = 0;
    while (true) {
      const auto comma = all.find(',', start);
      shapes.push_back(parse_shape(all.substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  } else {
    shapes.push_back(parse_shape(s.op.text("shape")));
  }
  const bool in_place = s.op.integer("inplace", 0) != 0;
  auto inputs = std::make_shared<std::vector<Buffer>>(), outputs = std::make_shared<std::vector<Buffer>>();
  for (std::size_t t = 0; t < shapes.size(); ++t) {
    const TensorInput in = input_of(s.op, domain_of(red), static_cast<int>(t));
    inputs->emplace_back(in.dtype, shapes[t]);
    fill(inputs->back(), in, s.rank);
    outputs->emplace_back(in.dtype, shapes[t]);
  }
  const AllreduceOptions options{red, reduction.prescale, reduction.postscale, s.name, s.set_id};
  auto start = [=] {
    std::vector<TensorView> in, out;
    for (std::size_t t = 0; t < inputs->size(); ++t) {
      in.push_back((*inputs)[t].view());
      out.push_back(in_place ? (*inputs)[t].view() : (*outputs)[t].view());
    }
    return grouped ? grouped_allreduce_async(in, out, options) : allreduce_async(in[0], out[0], options);
  };
  const OpSpec op = s.op;
  const std::vector<int> members = s.members;
  const std::string label = s.label;
  auto check = [=](const Handle&, Failures& failures) {
    for (std::size_t t = 0; t < inputs->size(); ++t) {
      const TensorInput in = input_of(op, domain_of(red), static_cast<int>(t));
      Buffer& result = in_place ? (*inputs)[t] : (*outputs)[t];
      compare(label + (grouped ? " tensor " + std::to_string(t) : ""), result.bytes.data(), in.dtype, result.elements(),
              [&](std::int64_t i) {
                return std::pair{reduced_value(in, reduction, members, i), tolerance(in, reduction, members, i)};
              },
              failures);
    }
  };
  return prepared(s.label, expectation_of(s.op, s.position >= 0, s.name), start, check);
}

Prepared reducescatter_op(const OpScope& s) {
  const ReduceOp red = reduce_op_named(s.op.text("red"));
  const Reduction reduction{red, s.op.number("pre", 1), s.op.number("post", 1)};
  const auto tail = parse_shape(s.op.text_or("tail", "-"));
  const std::int64_t rows = s.op.integer("rows", 0), row_elements = product(tail);
  const TensorInput in = input_of(s.op, domain_of(red));
  auto input = std::make_shared<Buffer>(in.dtype, with_rows(rows, tail));
  fill(*input, in, s.rank);
  const ReducescatterOptions options{red, s.name, {}, s.set_id};
  auto start = [=] { return reducescatter_async(input->view(), options); };
  const std::vector<int> members = s.members;
  const int position = s.position;
  const std::string label = s.label;
  auto check = [=](const Handle& handle, Failures& failures) {
    const RowRange mine = scatter_rows(rows, static_cast<int>(members.size()), position);
    const TensorView& out = handle.output();
    check_shape(label, out.shape, with_rows(mine.rows, tail), failures);
    const std::int64_t offset = mine.first * row_elements;
    compare(label, out.data, out.dtype, std::min(out.num_elements(), mine.rows * row_elements),
            [&](std::int64_t i) {
              return std::pair{reduced_value(in, reduction, members, offset + i),
                               tolerance(in, reduction, members, offset + i)};
            },
            failures);
  };
  return prepared(s.label, expectation_of(s.op, s.position >= 0, s.name), start, check);
}

Prepared allgather_op(const OpScope& s) {
  const auto tail = parse_shape(s.op.text_or("tail", "-"));
  const auto rows = s.op.integers("rows");  // per member
  const std::int64_t row_elements = product(tail);
  const TensorInput in = input_of(s.op, ValueDomain::kMove);
  const std::int64_t my_rows = s.position >= 0 ? rows.at(s.position) : 1;
  auto input = std::make_shared<Buffer>(in.dtype, with_rows(my_rows, tail));
  fill(*input, in, s.rank);
  const AllgatherOptions options{s.name, {}, s.set_id};
  auto start = [=] { return allgather_async(input->view(), options); };
  const std::vector<int> members = s.members;
  const std::string label = s.label;
  auto check = [=](const Handle& handle, Failures& failures) {
    const TensorView& out = handle.output();
    const std::int64_t total = std::accumulate(rows.begin(), rows.end(), std::int64_t{0});
    check_shape(label, out.shape, with_rows(total, tail), failures);
    std::vector<std::pair<int, std::int64_t>> source;  // output element -> (member rank, its element)
    for (std::size_t q = 0; q < members.size(); ++q) {
      for (std::int64_t i = 0; i < rows[q] * row_elements; ++i) source.emplace_back(members[q], i);
    }
    compare(label, out.data, out.dtype, std::min<std::int64_t>(out.num_elements(), source.size()),
            [&](std::int64_t i) { return std::pair{input_value(in, source[i].first, source[i].second), 0.0}; },
            failures);
  };
  return prepared(s.label, expectation_of(s.op, s.position >= 0, s.name), start, check);
}

Prepared broadcast_op(const OpScope& s) {
  const auto shape = parse_shape(s.op.text("shape"));
  const int root = static_cast<int>(s.op.integer("root", 0));
  const TensorInput in = input_of(s.op, ValueDomain::kMove);
  auto tensor = std::make_shared<Buffer>(in.dtype, shape);
  fill(*tensor, in, s.rank);
  const BroadcastOptions options{root, s.name, s.set_id};
  auto start = [=] { return broadcast_async(tensor->view(), options); };
  const std::string label = s.label;
  auto check = [=](const Handle&, Failures& failures) {
    compare(label, tensor->bytes.data(), in.dtype, tensor->elements(),
            [&](std::int64_t i) { return std::pair{input_value(in, root, i), 0.0}; }, failures);
  };
  return prepared(s.label, expectation_of(s.op, s.position >= 0, s.name), start, check);
}

Prepared alltoall_op(const OpScope& s) {
  const auto tail = parse_shape(s.op.text_or("tail", "-"));
  const std::int64_t row_elements = product(tail);
  const int n = static_cast<int>(s.members.size());
  const bool equal = s.op.text("splits") == "equal";
  std::vector<std::vector<std::int64_t>> splits;  // [sender][receiver], members' positions
  if (equal) {
    const std::int64_t rows = s.op.integer("rows", 0);
    splits.assign(n, std::vector<std::int64_t>(n, rows / n));
  } else {
    splits = parse_matrix(s.op.text("splits"));
  }
  const TensorInput in = input_of(s.op, ValueDomain::kMove);
  const int me = s.position;
  const std::int64_t my_rows =
      me >= 0 ? std::accumulate(splits[me].begin(), splits[me].end(), std::int64_t{0}) : std::int64_t{n};
  auto input = std::make_shared<Buffer>(in.dtype, with_rows(equal ? s.op.integer("rows", 0) : my_rows, tail));
  fill(*input, in, s.rank);
  AlltoallOptions options{equal || me < 0 ? std::vector<std::int64_t>{} : splits[me], s.name, {}, s.set_id};
  auto start = [=] { return alltoall_async(input->view(), options); };
  const std::vector<int> members = s.members;
  const std::string label = s.label;
  auto check = [=](const Handle& handle, Failures& failures) {
    std::vector<std::pair<int, std::int64_t>> source;
    std::vector<std::int64_t> received;
    for (int q = 0; q < n; ++q) {
      const std::int64_t first = std::accumulate(splits[q].begin(), splits[q].begin() + me, std::int64_t{0});
      received.push_back(splits[q][me]);
      for (std::int64_t i = 0; i < splits[q][me] * row_elements; ++i) {
        source.emplace_back(members[q], first * row_elements + i);
      }
    }
    const TensorView& out = handle.output();
    check_shape(label, out.shape, with_rows(std::accumulate(received.begin(), received.end(), std::int64_t{0}), tail),
                failures);
    if (handle.received_splits() != received) failures.push_back(label + ": received splits differ");
    compare(label, out.data, out.dtype, std::min<std::int64_t>(out.num_elements(), source.size()),
            [&](std::int64_t i) { return std::pair{input_value(in, source[i].first, source[i].second), 0.0}; },
            failures);
  };
  return prepared(s.label, expectation_of(s.op, s.position >= 0, s.name), start, check);
}

Prepared barrier_op(const OpScope& s) {
  auto thrown = std::make_shared<std::exception_ptr>();
  const std::int32_t set = s.set_id;
  const bool member = s.position >= 0;
  const std::string label = s.label;
  return {[=] {
            try {
              barrier(set);
            } catch (...) {
              *thrown = std::current_exception();
            }
          },
          [=](Failures& failures) {
            if (!member) return expect_error(label, {true, ErrorKind::kUsage, "process set"}, *thrown, failures);
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
    const TensorInput in = input_of(op, ValueDomain::kReduce);
    Buffer tensor(in.dtype, parse_shape(op.text("shape")));
    fill(tensor, in, c.rank);
    const std::string name = label;
    try {
      if (after == "allreduce") {
        allreduce(tensor.view(), tensor.view(), {ReduceOp::kSum, 1, 1, "c" + std::to_string(c.case_index) + ".join"});
        compare(label + " allreduce after the others joined", tensor.bytes.data(), in.dtype, tensor.elements(),
                [&](std::int64_t i) { return std::pair{input_value(in, c.rank, i), 0.0}; }, failures);
      } else {
        const std::string n = "c" + std::to_string(c.case_index) + ".join";
        std::exception_ptr thrown;
        try {
          if (after == "allgather") allgather(tensor.view(), {n});
          if (after == "broadcast") broadcast(tensor.view(), {late, n});
          if (after == "alltoall") {  // every row to itself: only the joined ranks make it fail
            std::vector<std::int64_t> splits(c.size, 0);
            splits[c.rank] = tensor.shape.empty() ? 1 : tensor.shape[0];
            alltoall(tensor.view(), {splits, n});
          }
        } catch (...) {
          thrown = std::current_exception();
        }
        expect_error(label + " " + after + " after the others joined", {true, ErrorKind::kUsage, "joined"}, thrown,
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
      const OpSpec op = as_seen_by(written, c.rank, members);
      const int position = position_in(members, c.rank);
      if (position < 0 && op.integer("outsider", 0) == 0) continue;  // not its op
      const bool global = written.text_or("set", "all") == "all";
      const OpScope scope{op, name, label, members, c.rank, position, global ? 0 : c.set_ids.at(members)};
      if (op.kind == "allreduce") steps.push_back(allreduce_op(scope, false));
      else if (op.kind == "grouped_allreduce") steps.push_back(allreduce_op(scope, true));
      else if (op.kind == "reducescatter") steps.push_back(reducescatter_op(scope));
      else if (op.kind == "allgather") steps.push_back(allgather_op(scope));
      else if (op.kind == "broadcast") steps.push_back(broadcast_op(scope));
      else if (op.kind == "alltoall") steps.push_back(alltoall_op(scope));
      else if (op.kind == "barrier") steps.push_back(barrier_op(scope));
      else failures.push_back(label + ": unknown op kind");
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
