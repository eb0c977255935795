// Runs one collective case on this rank through libhvd's public API and checks every result against
// reference.h: every op of the step is submitted asynchronously (in this rank's own order when the step is
// shuffled), then each is waited for and checked. Returns what failed, one line each, naming the op, dtype, element,
// the value got and the value wanted; empty when the case passed on this rank.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "tests/cases/case_spec.h"

namespace hvd::cases {

struct RunContext {
  int case_index = 0;
  int rank = 0, size = 1;
  std::map<std::vector<int>, int> set_ids;  // a process set's job ranks -> its id
};

std::vector<std::string> run_case(const CaseSpec& spec, const RunContext& context);

// The process sets the cases use, each once, in order of first use: what hvd::init(process_sets) is given.
std::vector<std::vector<int>> process_sets_of(const std::vector<CaseSpec>& cases, int size);

}  // namespace hvd::cases
