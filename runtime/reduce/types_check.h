// Whether a value of a public enum is one of its named values. The API boundary (api.cc, c_api.cc) asks before
// anything else sees the value; the table behind it is runtime/reduce/types.cc.
#pragma once

#include "hvd/types.h"

namespace hvd::detail {

bool is_valid(DataType dtype);
bool is_valid(ReduceOp op);
inline bool is_valid(Device::Kind kind) { return kind == Device::Kind::kCPU || kind == Device::Kind::kGPU; }

}  // namespace hvd::detail
