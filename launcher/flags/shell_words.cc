#include "launcher/flags/shell_words.h"

#include <algorithm>
#include <cctype>
#include <optional>

#include "common/error.h"

namespace hvd::launcher {

std::vector<std::string> split_shell_words(std::string_view text, std::string_view what) {
  std::vector<std::string> words;
  std::optional<std::string> word;  // engaged once a word has started, so '' makes an empty word
  auto unterminated = [&](std::string_view problem) {
    return UsageError(std::string{what} + " '" + std::string{text} + "': " + std::string{problem} +
                      "; close it, or quote the whole value for your shell once and the words inside it for mpirun");
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == ' ' || c == '\t' || c == '\n') {
      if (word) words.push_back(std::move(*word));
      word.reset();
      continue;
    }
    if (!word) word.emplace();
    if (c == '\'') {
      const size_t close = text.find('\'', i + 1);
      if (close == std::string_view::npos) throw unterminated("a ' is not closed");
      word->append(text.substr(i + 1, close - i - 1));
      i = close;
    } else if (c == '"') {
      for (++i;; ++i) {
        if (i >= text.size()) throw unterminated("a \" is not closed");
        if (text[i] == '"') break;
        // Inside double quotes a backslash escapes only these, as in sh.
        if (text[i] == '\\' && i + 1 < text.size() &&
            std::string_view{"\"\\$`"}.find(text[i + 1]) != std::string_view::npos)
          ++i;
        word->push_back(text[i]);
      }
    } else if (c == '\\') {
      if (++i >= text.size()) throw unterminated("it ends with a lone backslash");
      word->push_back(text[i]);
    } else {
      word->push_back(c);
    }
  }
  if (word) words.push_back(std::move(*word));
  return words;
}

std::string shell_quote(const std::vector<std::string>& words) {
  auto is_plain = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) ||
           std::string_view{"-_./:=,@+%"}.find(c) != std::string_view::npos;
  };
  std::string line;
  for (const auto& word : words) {
    if (!line.empty()) line += ' ';
    if (!word.empty() && std::all_of(word.begin(), word.end(), is_plain)) {
      line += word;
      continue;
    }
    line += '\'';
    for (char c : word) line += c == '\'' ? std::string{"'\\''"} : std::string(1, c);
    line += '\'';
  }
  return line;
}

}  // namespace hvd::launcher
