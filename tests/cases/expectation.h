// What one op of a case gives each rank, from reference.h alone: the tensors the rank passes (inputs_of) and what
// it must get back (expected_of): output tensors with a bound per element, alltoall's received splits, or the
// error every member must see instead (a mismatch, a usage error for a rank outside the set). The C++ runner
// (execute.cc) checks libhvd with it; `hvd_case_runner --expect` writes both for the framework runners
// (torch_case_runner.py), so that one reference checks every executor.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hvd/error.h"
#include "hvd/types.h"
#include "tests/cases/case_spec.h"

namespace hvd::cases {

struct Values {
  std::vector<std::int64_t> shape;
  std::vector<double> values;
  std::vector<double> bounds;  // outputs only: |got - value| <= bound (0: exact)
};

struct OpInputs {
  DataType dtype = DataType::kFloat32;
  std::vector<Values> tensors;         // grouped ops: one per tensor
  std::vector<std::int64_t> splits;    // alltoall: rows to each member (empty: equal parts)
  bool member = false;                 // in the op's set (an outsider calls only to be refused)
};

struct OpExpectation {
  bool error = false;              // an hvd error instead of a result
  ErrorKind kind = ErrorKind::kInternal;
  std::string phrase;              // what the error's message must hold
  std::vector<Values> outputs;     // in place ops (allreduce, broadcast): the input tensors after the op
  std::vector<std::int64_t> received_splits;  // alltoall
};

DataType dtype_named(const std::string& name);
ReduceOp reduce_op_named(const std::string& name);
std::vector<int> members_of(const OpSpec& op, int size);  // job ranks, in the set's order

// The op as `rank` sees it: a rank told to disagree (mismatch=<field> odd=<rank>) changes that field.
OpSpec as_seen_by(const OpSpec& op, int rank, int size);

// What `rank` passes (from the op as it sees it) and what it must get (from the op as written). Not for join,
// whose steps run_join() handles (execute.cc).
OpInputs inputs_of(const OpSpec& seen, int rank, int size);
OpExpectation expected_of(const OpSpec& written, int rank, int size);

}  // namespace hvd::cases
