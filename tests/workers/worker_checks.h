// The checks the C++ test workers make: a failed check prints what failed, naming this rank, and counts it, so
// that the worker runs every check and exits non-zero when any failed (g_failures).
#pragma once

#include <cstdio>
#include <string>

#include "hvd/error.h"

namespace hvd::test {

inline int g_rank = 0;      // this rank, as the failures name it: the worker sets it after hvd::init()
inline int g_failures = 0;  // checks failed so far

inline void check(bool ok, const std::string& what) {
  if (!ok) {
    std::fprintf(stderr, "rank %d: %s\n", g_rank, what.c_str());
    ++g_failures;
  }
}

// `call` must throw hvd::Error with `keyword` in its message.
template <typename F>
void check_throws(F&& call, const std::string& keyword, const std::string& what) {
  try {
    call();
  } catch (const hvd::Error& e) {
    check(std::string(e.what()).find(keyword) != std::string::npos,
          what + ": threw '" + e.what() + "', wanted '" + keyword + "'");
    return;
  }
  check(false, what + ": did not throw");
}

}  // namespace hvd::test
