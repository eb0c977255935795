// hvd's exception type. Messages say what failed, where (rank, host, tensor, op) and what to do, e.g.
// "allreduce 'grad/fc1.weight': rank 3 (h2) sent float16, ranks 0-2 sent float32; cast before the call".
// Each error also carries its kind and, where known, the rank, host, peer and tensor as fields, so callers (the C
// API's hvd_last_error_kind(), the Python exception types) can tell a lost peer from a bad call without parsing.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>

#include "hvd/export.h"

namespace hvd {

// The values are the C API's hvd_error_kind (include/hvd/c_api.h); 0 there means "no error".
enum class ErrorKind : int {
  kInternal = 1,  // unclassified: a bug, or a failure no rule below covers
  kUsage = 2,     // a bad argument or configuration value; fix the call or the variable
  kPeerLost = 3,  // a peer died or its connection broke; the job cannot go on
  kMismatch = 4,  // ranks disagree about a collective (dtype, shape, op, root, device)
  kStall = 5,     // the stall inspector shut the job down (HOROVOD_STALL_SHUTDOWN_TIME_SECONDS)
  kBackend = 6,   // a backend (MPI, NCCL, CUDA, shared memory) could not be set up or failed
  kMembership = 7,  // elastic: hvdrun is re-forming the job (a host was lost, added or removed); hvd::elastic::run resets
};

// "usage", "peer lost", ... for logs and messages.
constexpr const char* to_string(ErrorKind kind) noexcept {
  switch (kind) {
    case ErrorKind::kUsage:
      return "usage";
    case ErrorKind::kPeerLost:
      return "peer lost";
    case ErrorKind::kMismatch:
      return "mismatch";
    case ErrorKind::kStall:
      return "stall";
    case ErrorKind::kBackend:
      return "backend";
    case ErrorKind::kMembership:
      return "membership";
    case ErrorKind::kInternal:
      break;
  }
  return "internal";
}

// Where a failure happened; unknown fields stay empty (-1 for ranks).
struct ErrorContext {
  int rank = -1;         // the rank that raised the error
  std::string host{};    // its host
  int peer = -1;         // the other rank involved (the lost peer, the rank that disagrees)
  std::string tensor{};  // the tensor's name
};

class HVD_API Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what) : Error(ErrorKind::kInternal, what) {}
  explicit Error(const char* what) : Error(ErrorKind::kInternal, std::string(what)) {}
  Error(ErrorKind kind, const std::string& what, ErrorContext context = {})
      : std::runtime_error(what), kind_(kind), context_(std::make_shared<const ErrorContext>(std::move(context))) {}

  ErrorKind kind() const noexcept { return kind_; }
  const ErrorContext& context() const noexcept { return *context_; }

 private:
  ErrorKind kind_;
  std::shared_ptr<const ErrorContext> context_;  // shared: copying an exception must not throw
};

}  // namespace hvd
