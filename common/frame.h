// Authenticated framing for control-plane messages: [u32 body length][32-byte MAC][JSON body].
// MAC = HMAC-SHA256(session_key, u64 sequence || body); each direction counts its own sequence from 0, so a
// forged, replayed, reordered or truncated frame fails verification. Bodies above kMaxFrameBody are refused
// before anything is allocated.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace hvd {

inline constexpr std::size_t kFrameHeaderSize = 4 + 32;
inline constexpr std::size_t kMaxFrameBody = 64u << 20;

class FrameSealer {
 public:
  explicit FrameSealer(std::string session_key) : key_(std::move(session_key)) {}
  std::string seal(const nlohmann::json& message);
  std::string seal_body(std::string_view body);

 private:
  std::string key_;
  std::uint64_t sequence_ = 0;
};

class FrameOpener {
 public:
  explicit FrameOpener(std::string session_key) : key_(std::move(session_key)) {}
  // Body length announced by a header; throws ProtocolError when it is above the limit.
  static std::size_t body_size(std::string_view header);
  // Verifies one whole frame (header + body); throws ProtocolError on a bad MAC or bad JSON.
  nlohmann::json open(std::string_view header, std::string_view body);

  // Stream form: append received bytes, then take complete frames one by one.
  void feed(std::string_view bytes) { pending_.append(bytes); }
  std::optional<nlohmann::json> next();

 private:
  std::string key_;
  std::uint64_t sequence_ = 0;
  std::string pending_;
};

}  // namespace hvd
