// HMAC-SHA256 (Nettle), random bytes (getrandom) and hex. The job secret and every MAC pass through here.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace hvd {

inline constexpr std::size_t kMacSize = 32;     // HMAC-SHA256 output
inline constexpr std::size_t kSecretSize = 32;  // bytes of a job secret

std::string hmac_sha256(std::string_view key, std::string_view data);
std::string random_bytes(std::size_t n);
bool equal_constant_time(std::string_view a, std::string_view b);

std::string to_hex(std::string_view bytes);
// Throws hvd::Error when `hex` is not an even-length hex string.
std::string from_hex(std::string_view hex);

// A fresh job secret as hex (what travels on stdin and in the worker environment).
std::string make_job_secret_hex();

}  // namespace hvd
