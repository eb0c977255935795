#include "common/frame.h"

#include "common/crypto.h"
#include "common/error.h"

namespace hvd {
namespace {
std::string mac_input(std::uint64_t sequence, std::string_view body) {
  std::string s(8, '\0');
  for (int i = 0; i < 8; ++i) s[i] = static_cast<char>(sequence >> (56 - 8 * i));
  s.append(body);
  return s;
}
}  // namespace

std::string FrameSealer::seal(const nlohmann::json& message) { // Invalid UTF-8 (a worker printing binary) is replaced, never thrown.
  return seal_body(message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)); }

std::string FrameSealer::seal_body(std::string_view body) {
  if (body.size() > kMaxFrameBody)
    throw Error(ErrorKind::kUsage, "frame body of " + std::to_string(body.size()) + " bytes is above the limit");
  std::string frame(4, '\0');
  auto n = static_cast<std::uint32_t>(body.size());
  for (int i = 0; i < 4; ++i) frame[i] = static_cast<char>(n >> (24 - 8 * i));
  frame += hmac_sha256(key_, mac_input(sequence_++, body));
  frame.append(body);
  return frame;
}

std::size_t FrameOpener::body_size(std::string_view header) {
  std::uint32_t n = 0;
  for (int i = 0; i < 4; ++i) n = n << 8 | static_cast<unsigned char>(header[i]);
  if (n > kMaxFrameBody) {
    throw ProtocolError("frame of " + std::to_string(n) + " bytes announced, above the " +
                        std::to_string(kMaxFrameBody) + "-byte limit");
  }
  return n;
}

nlohmann::json FrameOpener::open(std::string_view header, std::string_view body) {
  if (header.size() != kFrameHeaderSize || body.size() != body_size(header)) {
    throw ProtocolError("truncated frame");
  }
  if (!equal_constant_time(header.substr(4), hmac_sha256(key_, mac_input(sequence_, body)))) {
    throw ProtocolError("frame failed authentication (forged, replayed or reordered)");
  }
  ++sequence_;
  auto message = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (message.is_discarded() || !message.is_object()) throw ProtocolError("frame body is not a JSON object");
  return message;
}

std::optional<nlohmann::json> FrameOpener::next() {
  if (pending_.size() < kFrameHeaderSize) return std::nullopt;
  std::size_t n = body_size(pending_);
  if (pending_.size() < kFrameHeaderSize + n) return std::nullopt;
  std::string_view all(pending_);
  auto message = open(all.substr(0, kFrameHeaderSize), all.substr(kFrameHeaderSize, n));
  pending_.erase(0, kFrameHeaderSize + n);
  return message;
}

}  // namespace hvd
