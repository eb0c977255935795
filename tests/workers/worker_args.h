// The command line of a test worker whose first argument is its mode: the mode, or the usage printed to stderr
// when fewer than `count` arguments came (the worker then exits with its usage code).
#pragma once

#include <cstdio>
#include <optional>
#include <string>

namespace hvd::test {

inline std::optional<std::string> worker_mode(int argc, char** argv, int count, const char* usage) {
  if (argc < count) {
    std::fprintf(stderr, "usage: %s\n", usage);
    return std::nullopt;
  }
  return std::string(argv[1]);
}

}  // namespace hvd::test
