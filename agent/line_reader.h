// Splits a byte stream (a worker's stdout or stderr) into whole lines for the launcher.
// Contract: a line ends at '\n' (a "\r\n" pair ends one line); a segment ending in a lone '\r' is a line too,
// so progress updates come through (an empty '\r' segment is dropped, an empty '\n' line is kept); terminators
// are never part of a line; a line longer than max_line is emitted in pieces, never dropped, cut on a UTF-8
// character boundary; finish() returns the unterminated remainder at EOF. No byte is ever lost.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hvd::agent {

class LineReader {
 public:
  static constexpr std::size_t kMaxLine = 64 * 1024;

  explicit LineReader(std::size_t max_line = kMaxLine);

  // Appends bytes; returns every line they complete, in order.
  std::vector<std::string> feed(std::string_view bytes);
  // At EOF: the unterminated last line, if any. The reader is empty afterwards.
  std::optional<std::string> finish();

 private:
  void emit(std::vector<std::string>& out);

  std::size_t max_line_;
  std::string partial_;
  bool after_cr_ = false;  // the last byte seen was '\r': a '\n' right after it ends nothing
};

// Replaces every byte that is not part of well-formed UTF-8 with U+FFFD, so JSON can carry any output.
std::string sanitize_utf8(std::string_view bytes);

}  // namespace hvd::agent
