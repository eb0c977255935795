// A collective case as tests/cases/case_generator.py writes it: one line that reruns it alone (docs/testing.md,
// "The collective case generator"). Three parts separated by " | ": the job (np, backend, fusion, ...: what
// hvdrun is started with), the step (order=same|shuffled: whether each rank submits the ops in its own order, drawn from seed=), and
// the ops, separated by " ; ", each a kind followed by key=value fields:
//   np=3 backend=builtin fusion=on hier=0 | order=shuffled | allreduce dtype=float16 shape=5x3 red=sum set=0.2 seed=7
// The runner (case_runner_main.cc) derives every rank's inputs from the fields, so every rank can check every result.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace hvd::cases {

struct OpSpec {
  std::string kind;  // allreduce grouped_allreduce allgather broadcast alltoall reducescatter barrier join
  std::map<std::string, std::string> fields;

  bool has(const std::string& key) const { return fields.count(key) != 0; }
  const std::string& text(const std::string& key) const;  // throws naming the op and the missing key
  std::string text_or(const std::string& key, const std::string& fallback) const;
  std::int64_t integer(const std::string& key, std::int64_t fallback) const;
  double number(const std::string& key, double fallback) const;
  // "0.2.3" -> {0, 2, 3}; "" or "-" -> {}
  std::vector<std::int64_t> integers(const std::string& key) const;
};

struct CaseSpec {
  std::string line;                          // as read, for the report
  std::map<std::string, std::string> job;    // np, backend, fusion, hier, hosts
  bool shuffled = false;                     // each rank submits the ops in an order of its own
  std::uint64_t seed = 0;                    // the step's: each rank's order derives from it and the rank
  std::vector<OpSpec> ops;
};

CaseSpec parse_case(const std::string& line);  // throws std::invalid_argument naming what is malformed

// "5x3" -> {5, 3}; "scalar" -> {}; "0x3" -> {0, 3}
std::vector<std::int64_t> parse_shape(const std::string& text);
// "a.b.c/d.e.f" -> rows of integers (alltoall's splits: one row per sender)
std::vector<std::vector<std::int64_t>> parse_matrix(const std::string& text);

}  // namespace hvd::cases
