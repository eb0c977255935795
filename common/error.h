// Error types shared by hvdrun, hvd-agent and libhvd.
// Every message says what failed, where (rank, host, peer, tensor) and, where known, what to do.
#pragma once

#include <string>

#include "hvd/error.h"

namespace hvd {

// Bad input from the user (flags, host lists, hostfiles, environment variables): one line naming the value and the
// fix. Its kind is ErrorKind::kUsage; hvdrun exits with exit_code::kUsage for it (launcher/exit_codes.h).
class UsageError : public Error {
 public:
  explicit UsageError(const std::string& what) : Error(ErrorKind::kUsage, what) {}
};

// A peer broke the protocol or failed authentication; the connection is dropped, the job goes on.
class ProtocolError : public Error {
 public:
  using Error::Error;
};

}  // namespace hvd
