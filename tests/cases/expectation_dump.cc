#include "tests/cases/expectation_dump.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "tests/cases/expectation.h"
#include "tests/cases/reference.h"

namespace hvd::cases {
namespace {

using nlohmann::json;

class Blob {
 public:
  explicit Blob(const std::string& path) : out_(path, std::ios::binary) {
    if (!out_) throw std::runtime_error("cannot write '" + path + "'");
  }
  std::size_t add(const std::vector<double>& values) {
    const std::size_t at = written_;
    out_.write(reinterpret_cast<const char*>(values.data()), static_cast<std::streamsize>(values.size() * sizeof(double)));
    written_ += values.size();
    return at;
  }

 private:
  std::ofstream out_;
  std::size_t written_ = 0;
};

json tensor(const Values& v, Blob& blob, bool with_bounds) {
  json t{{"shape", v.shape}, {"at", blob.add(v.values)}, {"count", v.values.size()}};
  if (with_bounds) t["bounds_at"] = blob.add(v.bounds.empty() ? std::vector<double>(v.values.size(), 0.0) : v.bounds);
  return t;
}

json join_op(const OpSpec& op, int rank, Blob& blob) {
  json j{{"member", true}, {"dtype", op.text("dtype")}, {"inputs", json::array()}, {"outputs", json::array()},
         {"splits", json::array()}, {"error", nullptr}, {"received_splits", json::array()}};
  if (op.integer("late", 0) != rank) return j;
  const TensorInput in{static_cast<std::uint64_t>(op.integer("seed", 1)), 0, dtype_named(op.text("dtype")),
                       ValueDomain::kReduce};
  Values mine{parse_shape(op.text("shape")), {}, {}};
  std::int64_t n = 1;
  for (auto d : mine.shape) n *= d;
  for (std::int64_t i = 0; i < n; ++i) mine.values.push_back(input_value(in, rank, i));
  j["inputs"].push_back(tensor(mine, blob, false));
  j["outputs"].push_back(tensor(mine, blob, true));
  return j;
}

json one_op(const OpSpec& op, int rank, int size, Blob& blob) {
  if (op.kind == "join") return join_op(op, rank, blob);
  const OpSpec seen = as_seen_by(op, rank, size);
  const OpInputs in = inputs_of(seen, rank, size);
  const OpExpectation want = expected_of(op, rank, size);
  json j{{"member", in.member}, {"dtype", name_of(in.dtype)}, {"splits", in.splits}, {"fields", seen.fields},
         {"received_splits", want.received_splits}, {"inputs", json::array()}, {"outputs", json::array()}};
  for (const auto& t : in.tensors) j["inputs"].push_back(tensor(t, blob, false));
  for (const auto& t : want.outputs) j["outputs"].push_back(tensor(t, blob, true));
  j["error"] = want.error ? json{{"kind", want.kind == ErrorKind::kMismatch ? "mismatch" : "usage"},
                                 {"phrase", want.phrase}}
                          : json(nullptr);
  return j;
}

}  // namespace

void write_expectations(const std::vector<CaseSpec>& cases, int rank, int size, const std::string& dir) {
  const std::string base = dir + "/r" + std::to_string(rank);
  Blob blob(base + ".bin");
  json index = json::array();
  for (const auto& c : cases) {
    json ops = json::array();
    for (const auto& op : c.ops) ops.push_back(one_op(op, rank, size, blob));
    index.push_back(std::move(ops));
  }
  std::ofstream(base + ".json") << index.dump();
}

}  // namespace hvd::cases
