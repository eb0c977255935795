// Shell-style words: split one string the way sh splits an unexpanded command line (for --mpi-args), and quote
// words back so that a printed command can be pasted into a shell (for --verbose).
// split_shell_words knows whitespace, '...', "..." (with \" \\ \$ \` escapes) and backslash; nothing is
// expanded. An unterminated quote or a trailing backslash throws hvd::UsageError naming `what`.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace hvd::launcher {

std::vector<std::string> split_shell_words(std::string_view text, std::string_view what);

// Each word as-is when it is plain (letters, digits, -_./:=,@+%), else in single quotes; joined by spaces.
std::string shell_quote(const std::vector<std::string>& words);

}  // namespace hvd::launcher
