#include "agent/line_reader.h"

namespace hvd::agent {
namespace {

bool is_continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

// Length of the well-formed UTF-8 sequence at the start of s, or 0 when it is malformed or cut short.
std::size_t utf8_sequence(std::string_view s) {
  auto c0 = static_cast<unsigned char>(s[0]);
  if (c0 < 0x80) return 1;
  std::size_t n = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // the allowed range of the second byte excludes overlongs and surrogates
  if (c0 >= 0xC2 && c0 <= 0xDF) {
    n = 2;
  } else if (c0 >= 0xE0 && c0 <= 0xEF) {
    n = 3;
    if (c0 == 0xE0) lo = 0xA0;
    if (c0 == 0xED) hi = 0x9F;
  } else if (c0 >= 0xF0 && c0 <= 0xF4) {
    n = 4;
    if (c0 == 0xF0) lo = 0x90;
    if (c0 == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (s.size() < n) return 0;
  auto c1 = static_cast<unsigned char>(s[1]);
  if (c1 < lo || c1 > hi) return 0;
  for (std::size_t i = 2; i < n; ++i) {
    if (!is_continuation(static_cast<unsigned char>(s[i]))) return 0;
  }
  return n;
}

}  // namespace

LineReader::LineReader(std::size_t max_line) : max_line_(max_line < 4 ? 4 : max_line) {}

void LineReader::emit(std::vector<std::string>& out) {
  out.push_back(std::move(partial_));
  partial_.clear();
}

std::vector<std::string> LineReader::feed(std::string_view bytes) {
  std::vector<std::string> out;
  for (char c : bytes) {
    bool was_cr = after_cr_;
    after_cr_ = false;
    if (c == '\n') {
      if (!was_cr) emit(out);
      continue;
    }
    if (c == '\r') {
      after_cr_ = true;
      if (!partial_.empty()) emit(out);
      continue;
    }
    partial_.push_back(c);
    if (partial_.size() < max_line_) continue;
    // Cut before a UTF-8 sequence that the limit would split; its first bytes start the next piece.
    std::size_t lead = partial_.size() - 1;
    for (int k = 0; k < 3 && lead > 0 && is_continuation(static_cast<unsigned char>(partial_[lead])); ++k) --lead;
    auto c0 = static_cast<unsigned char>(partial_[lead]);
    std::size_t need = c0 >= 0xF0 ? 4 : c0 >= 0xE0 ? 3 : c0 >= 0xC0 ? 2 : 1;
    std::size_t cut = (c0 >= 0xC0 && partial_.size() - lead < need && lead > 0) ? lead : partial_.size();
    std::string rest = partial_.substr(cut);
    partial_.resize(cut);
    emit(out);
    partial_ = std::move(rest);
  }
  return out;
}

std::optional<std::string> LineReader::finish() {
  after_cr_ = false;
  if (partial_.empty()) return std::nullopt;
  std::string last = std::move(partial_);
  partial_.clear();
  return last;
}

std::string sanitize_utf8(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  while (!bytes.empty()) {
    std::size_t n = utf8_sequence(bytes);
    if (n == 0) {
      out += "\xEF\xBF\xBD";
      n = 1;
    } else {
      out.append(bytes.substr(0, n));
    }
    bytes.remove_prefix(n);
  }
  return out;
}

}  // namespace hvd::agent
