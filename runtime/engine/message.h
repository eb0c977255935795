// What ranks tell the coordinator (Request, one per tensor) and what the coordinator tells every rank
// (Response, one per operation to execute, possibly several tensors fused). Both travel through wire.h.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/stop.h"
#include "hvd/error.h"
#include "hvd/types.h"

namespace hvd::detail {

enum class OpType : std::uint8_t { kAllreduce, kAllgather, kBroadcast, kAlltoall, kReducescatter, kBarrier, kJoin };
const char* name_of(OpType type);

struct Request {
  std::int32_t rank = 0;
  OpType type = OpType::kAllreduce;
  std::string name;
  DataType dtype = DataType::kFloat32;
  Shape shape;
  ReduceOp reduce_op = ReduceOp::kSum;
  double prescale = 1.0;
  double postscale = 1.0;
  std::int32_t root = 0;
  std::vector<std::int64_t> splits;  // alltoall
  std::string group;                 // grouped allreduce: the group's name; empty otherwise
  std::int32_t group_size = 0;
  Device::Kind device = Device::Kind::kCPU;
};

struct Response {
  OpType type = OpType::kAllreduce;
  std::vector<std::string> names;               // several when fused or grouped
  std::string error;                            // non-empty: these tensors fail on every rank with this message
  ErrorKind error_kind = ErrorKind::kInternal;  // with error: usage, mismatch (ranks disagree) or stall
  std::vector<std::int64_t> blame;              // with error: the ranks at fault (a mismatch's odd ones out), by
                                                // their ranks in the job (a process set's engine numbers its own)
  DataType dtype = DataType::kFloat32;
  ReduceOp reduce_op = ReduceOp::kSum;
  double prescale = 1.0;
  double postscale = 1.0;
  std::int32_t root = 0;
  std::vector<Shape> shapes;                 // per tensor (what joined ranks fill with zeros)
  std::vector<std::int64_t> rank_rows;       // allgather: first dimension of each rank
  std::vector<std::int64_t> splits;          // alltoall: size x size, row r = rank r's splits
  std::int32_t last_joined_rank = -1;        // join
  Device::Kind device = Device::Kind::kCPU;  // CPU and GPU tensors never share a response
};

// One rank's contribution to a full negotiation cycle.
struct RequestList {
  std::vector<Request> requests;
  bool shutdown = false;  // this rank called hvd::shutdown()
};

// The coordinator's answer, identical on every rank.
struct ResponseList {
  std::vector<Response> responses;
  // A code (common/stop.h): every rank stops, for this reason, after executing `responses`.
  Stop shutdown;
  // With shutdown: the ranks it is down to (the one that called hvd::shutdown(), or those a stall waited for; the
  // engine's own numbers).
  std::vector<std::int64_t> shutdown_blame;
  bool stopping() const { return shutdown.code != StopCode::kNone; }
};

bool is_reduction(OpType type);  // allreduce, reducescatter: fusable, cacheable
std::int64_t num_elements(const Shape& shape);
std::string shape_string(const Shape& shape);

}  // namespace hvd::detail
