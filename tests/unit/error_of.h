// The message of the error a call throws, for tests that check what an error names: hvd::Error by default, or the
// subtype E the test expects (anything else propagates and fails the test). "" when the call returns.
#pragma once

#include <string>

#include "hvd/error.h"

namespace hvd::test {

template <typename E = Error, typename F>
std::string error_of(F&& call) {
  try {
    call();
  } catch (const E& e) {
    return e.what();
  }
  return "";
}

}  // namespace hvd::test
