#include "common/frame.h"

#include <doctest/doctest.h>

#include "common/error.h"

using namespace hvd;
using nlohmann::json;

namespace {
const std::string kKey(32, 'k');

std::pair<std::string, std::string> split(const std::string& frame) {
  return {frame.substr(0, kFrameHeaderSize), frame.substr(kFrameHeaderSize)};
}
}  // namespace

TEST_CASE("frames round trip in order") {
  FrameSealer sealer(kKey);
  FrameOpener opener(kKey);
  for (int i = 0; i < 3; ++i) {
    auto [header, body] = split(sealer.seal({{"type", "output"}, {"n", i}}));
    CHECK(opener.open(header, body)["n"] == i);
  }
}

TEST_CASE("a tampered body fails authentication") {
  FrameSealer sealer(kKey);
  FrameOpener opener(kKey);
  auto [header, body] = split(sealer.seal({{"type", "exit"}, {"code", 0}}));
  body[body.find('0')] = '1';
  CHECK_THROWS_AS(opener.open(header, body), ProtocolError);
}

TEST_CASE("a frame sealed with another key fails") {
  FrameSealer sealer(std::string(32, 'x'));
  FrameOpener opener(kKey);
  auto [header, body] = split(sealer.seal({{"type", "hello"}}));
  CHECK_THROWS_AS(opener.open(header, body), ProtocolError);
}

TEST_CASE("a replayed or reordered frame fails") {
  FrameSealer sealer(kKey);
  FrameOpener opener(kKey);
  auto first = split(sealer.seal({{"n", 1}}));
  auto second = split(sealer.seal({{"n", 2}}));
  CHECK_NOTHROW(opener.open(first.first, first.second));
  CHECK_THROWS_AS(opener.open(first.first, first.second), ProtocolError);  // replay

  FrameOpener fresh(kKey);
  CHECK_THROWS_AS(fresh.open(second.first, second.second), ProtocolError);  // out of order
}

TEST_CASE("a truncated frame fails") {
  FrameSealer sealer(kKey);
  FrameOpener opener(kKey);
  auto [header, body] = split(sealer.seal({{"type", "output"}, {"lines", {"abc"}}}));
  CHECK_THROWS_AS(opener.open(header, body.substr(0, body.size() - 1)), ProtocolError);
}

TEST_CASE("an oversized frame is refused from its header, before any allocation") {
  std::string header(kFrameHeaderSize, '\0');
  header[0] = '\x7f';  // ~2 GiB announced
  CHECK_THROWS_AS(FrameOpener::body_size(header), ProtocolError);
  CHECK_THROWS_AS(FrameSealer(kKey).seal_body(std::string(kMaxFrameBody + 1, ' ')), Error);
}

TEST_CASE("a body that is not a JSON object fails, even with a valid MAC") {
  FrameSealer sealer(kKey);
  FrameOpener opener(kKey);
  auto [header, body] = split(sealer.seal_body("[1,2"));
  CHECK_THROWS_AS(opener.open(header, body), ProtocolError);
}

TEST_CASE("the stream opener yields whole frames from arbitrary chunks") {
  FrameSealer sealer(kKey);
  FrameOpener opener(kKey);
  std::string stream = sealer.seal({{"n", 1}});
  stream += sealer.seal({{"n", 2}});
  std::vector<int> seen;
  for (char c : stream) {
    opener.feed(std::string_view(&c, 1));
    while (auto m = opener.next()) seen.push_back((*m)["n"]);
  }
  CHECK(seen == std::vector<int>{1, 2});
}

TEST_CASE("invalid UTF-8 in a message is replaced, not thrown") {
  FrameSealer sealer(kKey);
  FrameOpener opener(kKey);
  auto [header, body] = split(sealer.seal({{"line", std::string("ok\xff\xfe")}}));
  CHECK(opener.open(header, body)["line"].get<std::string>().starts_with("ok"));
}
