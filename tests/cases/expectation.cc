#include "tests/cases/expectation.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "tests/cases/reference.h"

namespace hvd::cases {
namespace {

int position_in(const std::vector<int>& members, int rank) {
  const auto it = std::find(members.begin(), members.end(), rank);
  return it == members.end() ? -1 : static_cast<int>(it - members.begin());
}

std::vector<std::int64_t> with_rows(std::int64_t rows, const std::vector<std::int64_t>& tail) {
  std::vector<std::int64_t> shape{rows};
  shape.insert(shape.end(), tail.begin(), tail.end());
  return shape;
}

std::int64_t elements(const std::vector<std::int64_t>& dims) {
  std::int64_t n = 1;
  for (auto d : dims) n *= d;
  return n;
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const auto comma = text.find(',', start);
    parts.push_back(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) return parts;
    start = comma + 1;
  }
}

ValueDomain domain_of(const OpSpec& op) {
  if (!op.has("red")) return ValueDomain::kMove;
  return reduce_op_named(op.text("red")) == ReduceOp::kProduct ? ValueDomain::kProduct : ValueDomain::kReduce;
}

TensorInput input_of(const OpSpec& op, int tensor = 0) {
  return {static_cast<std::uint64_t>(op.integer("seed", 1)), tensor, dtype_named(op.text("dtype")), domain_of(op)};
}

// Every tensor's shape as the op's fields give it (its rows for this member where they differ by rank).
std::vector<std::vector<std::int64_t>> shapes_of(const OpSpec& op, const std::vector<int>& members, int position) {
  const auto tail = parse_shape(op.text_or("tail", "-"));
  const int n = static_cast<int>(members.size());
  if (op.kind == "grouped_allreduce") {
    std::vector<std::vector<std::int64_t>> shapes;
    for (const auto& s : split_list(op.text("shapes"))) shapes.push_back(parse_shape(s));
    return shapes;
  }
  if (op.kind == "allreduce" || op.kind == "broadcast") return {parse_shape(op.text("shape"))};
  if (op.kind == "reducescatter") return {with_rows(op.integer("rows", 0), tail)};
  if (op.kind == "allgather") return {with_rows(position >= 0 ? op.integers("rows").at(position) : 1, tail)};
  if (op.kind == "alltoall") {
    if (op.text("splits") == "equal") return {with_rows(op.integer("rows", 0), tail)};
    if (position < 0) return {with_rows(n, tail)};
    const auto row = parse_matrix(op.text("splits")).at(position);
    return {with_rows(std::accumulate(row.begin(), row.end(), std::int64_t{0}), tail)};
  }
  return {};
}

Values values_of(const TensorInput& in, int rank, const std::vector<std::int64_t>& shape) {
  Values v{shape, {}, {}};
  const std::int64_t n = elements(shape);
  v.values.reserve(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) v.values.push_back(input_value(in, rank, i));
  return v;
}

// The output element i comes from (member rank, its element): allgather and alltoall move data only.
Values gathered(const TensorInput& in, const std::vector<std::int64_t>& shape,
                const std::vector<std::pair<int, std::int64_t>>& sources) {
  Values v{shape, {}, std::vector<double>(sources.size(), 0.0)};
  v.values.reserve(sources.size());
  for (const auto& [rank, i] : sources) v.values.push_back(input_value(in, rank, i));
  return v;
}

}  // namespace

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

OpSpec as_seen_by(const OpSpec& op, int rank, int size) {
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
      const std::string first = split_list(op.text(key)).front();  // a grouped op: its first tensor
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
    const auto members = members_of(op, size);
    const int at = position_in(members, static_cast<int>(op.integer("root", 0)));
    mine.fields["root"] = std::to_string(members[(at + 1) % members.size()]);
  }
  return mine;
}

OpInputs inputs_of(const OpSpec& seen, int rank, int size) {
  OpInputs in;
  const auto members = members_of(seen, size);
  const int position = position_in(members, rank);
  in.member = position >= 0;
  if (seen.kind == "barrier") return in;
  in.dtype = dtype_named(seen.text("dtype"));
  const auto shapes = shapes_of(seen, members, position);
  for (std::size_t t = 0; t < shapes.size(); ++t) {
    in.tensors.push_back(values_of(input_of(seen, static_cast<int>(t)), rank, shapes[t]));
  }
  if (seen.kind == "alltoall" && seen.text("splits") != "equal" && position >= 0) {
    in.splits = parse_matrix(seen.text("splits")).at(position);
  }
  return in;
}

OpExpectation expected_of(const OpSpec& op, int rank, int size) {
  OpExpectation e;
  const auto members = members_of(op, size);
  const int position = position_in(members, rank), n = static_cast<int>(members.size());
  if (position < 0) return {true, ErrorKind::kUsage, "process set", {}, {}};
  if (op.has("mismatch")) return {true, ErrorKind::kMismatch, "rank " + op.text("odd"), {}, {}};
  if (op.kind == "barrier") return e;
  const auto tail = parse_shape(op.text_or("tail", "-"));
  const std::int64_t row_elements = elements(tail);
  if (op.kind == "allreduce" || op.kind == "grouped_allreduce" || op.kind == "reducescatter") {
    const Reduction r{reduce_op_named(op.text("red")), op.number("pre", 1), op.number("post", 1)};
    const auto shapes = shapes_of(op, members, position);
    for (std::size_t t = 0; t < shapes.size(); ++t) {
      const TensorInput in = input_of(op, static_cast<int>(t));
      auto shape = shapes[t];
      std::int64_t first = 0, count = elements(shape);
      if (op.kind == "reducescatter") {
        const RowRange mine = scatter_rows(shape[0], n, position);
        shape[0] = mine.rows;
        first = mine.first * row_elements;
        count = mine.rows * row_elements;
      }
      Values v{shape, {}, {}};
      for (std::int64_t i = first; i < first + count; ++i) {
        v.values.push_back(reduced_value(in, r, members, i));
        v.bounds.push_back(tolerance(in, r, members, i));
      }
      e.outputs.push_back(std::move(v));
    }
    return e;
  }
  const TensorInput in = input_of(op);
  std::vector<std::pair<int, std::int64_t>> sources;
  if (op.kind == "broadcast") {
    const auto shape = parse_shape(op.text("shape"));
    const int root = static_cast<int>(op.integer("root", 0));
    for (std::int64_t i = 0; i < elements(shape); ++i) sources.emplace_back(root, i);
    e.outputs.push_back(gathered(in, shape, sources));
  } else if (op.kind == "allgather") {
    const auto rows = op.integers("rows");
    for (std::size_t q = 0; q < members.size(); ++q) {
      for (std::int64_t i = 0; i < rows[q] * row_elements; ++i) sources.emplace_back(members[q], i);
    }
    e.outputs.push_back(gathered(in, with_rows(std::accumulate(rows.begin(), rows.end(), std::int64_t{0}), tail), sources));
  } else if (op.kind == "alltoall") {
    std::vector<std::vector<std::int64_t>> splits;
    if (op.text("splits") == "equal") {
      splits.assign(n, std::vector<std::int64_t>(n, op.integer("rows", 0) / n));
    } else {
      splits = parse_matrix(op.text("splits"));
    }
    for (int q = 0; q < n; ++q) {
      const std::int64_t first = std::accumulate(splits[q].begin(), splits[q].begin() + position, std::int64_t{0});
      e.received_splits.push_back(splits[q][position]);
      for (std::int64_t i = 0; i < splits[q][position] * row_elements; ++i) {
        sources.emplace_back(members[q], first * row_elements + i);
      }
    }
    const auto total = std::accumulate(e.received_splits.begin(), e.received_splits.end(), std::int64_t{0});
    e.outputs.push_back(gathered(in, with_rows(total, tail), sources));
  } else {
    throw std::invalid_argument("no op kind '" + op.kind + "'");
  }
  return e;
}

}  // namespace hvd::cases
