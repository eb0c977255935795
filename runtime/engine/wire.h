// Binary encoding of RequestList and ResponseList for the negotiation messages. Compact and fast (a step of
// thousands of tensors is encoded every uncached cycle); a malformed message throws hvd::Error.
#pragma once

#include <string>

#include "runtime/engine/message.h"

namespace hvd::detail {

std::string encode(const RequestList& list);
std::string encode(const ResponseList& list);
RequestList decode_requests(const std::string& bytes);
ResponseList decode_responses(const std::string& bytes);

}  // namespace hvd::detail
