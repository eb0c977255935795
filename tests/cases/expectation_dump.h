// `hvd_case_runner --expect FILE RANK SIZE DIR`: expectation.h's inputs and expectations of every op of FILE's cases
// for one rank, written for the framework runners (torch_case_runner.py): DIR/r<RANK>.json indexes
// DIR/r<RANK>.bin, a file of float64 values. Per case, per op:
//   {"member", "dtype", "fields" (the op's fields as this rank sees them: a mismatch's odd rank differs), "inputs": [{"shape", "at", "count"}], "splits", "error": null | {"kind", "phrase"},
//    "outputs": [{"shape", "at", "count", "bounds_at"}], "received_splits"}
// "at" counts float64 values from the start of the .bin file. A join op's "inputs" and "outputs" hold the late
// rank's tensor (what its allreduce returns while the others have joined), for that rank only.
#pragma once

#include <string>
#include <vector>

#include "tests/cases/case_spec.h"

namespace hvd::cases {

void write_expectations(const std::vector<CaseSpec>& cases, int rank, int size, const std::string& dir);

}  // namespace hvd::cases
