#include "agent/line_reader.h"

#include <doctest/doctest.h>

using hvd::agent::LineReader;
using hvd::agent::sanitize_utf8;
using Lines = std::vector<std::string>;

TEST_CASE("LineReader splits on newlines and keeps empty lines") {
  LineReader r;
  CHECK(r.feed("a\n\nbc\nd") == Lines{"a", "", "bc"});
  CHECK(r.feed("e\n") == Lines{"de"});
  CHECK_FALSE(r.finish());
}

TEST_CASE("LineReader emits the unterminated last line at EOF") {
  LineReader r;
  CHECK(r.feed("x\ntail").size() == 1);
  CHECK(r.finish() == std::optional<std::string>("tail"));
  CHECK_FALSE(r.finish());
}

TEST_CASE("LineReader passes carriage-return progress updates as lines") {
  LineReader r;
  CHECK(r.feed("\r 10%\r 20%\r 30%\n") == Lines{" 10%", " 20%", " 30%"});
  SUBCASE("CRLF is one line end, even across chunks") {
    CHECK(r.feed("win\r") == Lines{"win"});
    CHECK(r.feed("\nnext\r\n") == Lines{"next"});
    CHECK(r.feed("\n") == Lines{""});
  }
}

TEST_CASE("LineReader splits long lines without losing bytes") {
  LineReader r(8);
  CHECK(r.feed("0123456789abcdefXY\n") == Lines{"01234567", "89abcdef", "XY"});
  LineReader big;
  std::string line(200 * 1024 + 5, 'z');
  auto lines = big.feed(line + "\n");
  REQUIRE(lines.size() == 4);
  std::string joined;
  for (auto& l : lines) {
    CHECK(l.size() <= LineReader::kMaxLine);
    joined += l;
  }
  CHECK(joined == line);
}

TEST_CASE("LineReader cuts long lines on a UTF-8 character boundary") {
  LineReader r(8);
  // 7 ASCII bytes then a 3-byte character: the character moves to the next piece whole.
  auto lines = r.feed(
      "abcdefg\xE2\x82\xAC"
      "x\n");
  CHECK(lines == Lines{"abcdefg",
                       "\xE2\x82\xAC"
                       "x"});
  for (auto& l : lines) CHECK(sanitize_utf8(l) == l);
}

TEST_CASE("LineReader gives the same lines for any chunking") {
  std::string text;
  for (int i = 0; i < 500; ++i) text += "line " + std::to_string(i) + (i % 7 == 0 ? "\r\n" : "\n");
  text += "end";
  LineReader whole;
  auto expected = whole.feed(text);
  expected.push_back(*whole.finish());
  for (std::size_t chunk : {1, 2, 3, 7, 64}) {
    LineReader r;
    Lines got;
    for (std::size_t i = 0; i < text.size(); i += chunk) {
      for (auto& l : r.feed(std::string_view(text).substr(i, chunk))) got.push_back(l);
    }
    if (auto last = r.finish()) got.push_back(*last);
    CHECK(got == expected);
  }
  CHECK(expected.size() == 501);
}

TEST_CASE("sanitize_utf8 keeps valid text and replaces bad bytes") {
  CHECK(sanitize_utf8("plain") == "plain");
  CHECK(sanitize_utf8("\xC3\xA9t\xC3\xA9 \xF0\x9F\x98\x80") == "\xC3\xA9t\xC3\xA9 \xF0\x9F\x98\x80");
  CHECK(sanitize_utf8("a\xFF"
                      "b") ==
        "a\xEF\xBF\xBD"
        "b");
  CHECK(sanitize_utf8("\xE2\x82") == "\xEF\xBF\xBD\xEF\xBF\xBD");                  // cut short
  CHECK(sanitize_utf8("\xC0\xAF") == "\xEF\xBF\xBD\xEF\xBF\xBD");                  // overlong
  CHECK(sanitize_utf8("\xED\xA0\x80") == "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // surrogate
  CHECK(sanitize_utf8(std::string("a\0b", 3)) == std::string("a\0b", 3));
}
