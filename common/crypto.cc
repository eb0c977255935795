#include "common/crypto.h"

// Nettle rather than OpenSSL: libcrypto costs every process that links it ~0.6 ms at start (its relocations) and
// its EVP interface another ~1 ms on first use (configuration, providers); hvdrun, every agent and every worker pay
// that before their first message. Nettle loads in no measurable time and its HMAC-SHA256 is the same algorithm.
#include <nettle/hmac.h>
#include <nettle/memops.h>
#include <sys/random.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include "common/error.h"

namespace hvd {

std::string hmac_sha256(std::string_view key, std::string_view data) {
  hmac_sha256_ctx ctx;
  hmac_sha256_set_key(&ctx, key.size(), reinterpret_cast<const std::uint8_t*>(key.data()));
  hmac_sha256_update(&ctx, data.size(), reinterpret_cast<const std::uint8_t*>(data.data()));
  std::string mac(kMacSize, '\0');
  hmac_sha256_digest(&ctx, mac.size(), reinterpret_cast<std::uint8_t*>(mac.data()));
  return mac;
}

// The kernel's CSPRNG, which is what OpenSSL's RAND seeds from; getrandom blocks only before the pool is ready.
std::string random_bytes(std::size_t n) {
  std::string out(n, '\0');
  for (std::size_t done = 0; done < n;) {
    ssize_t got = ::getrandom(out.data() + done, n - done, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) throw Error(ErrorKind::kBackend, std::string("getrandom failed: no entropy for the job secret: ") + std::strerror(errno));
    done += static_cast<std::size_t>(got);
  }
  return out;
}

bool equal_constant_time(std::string_view a, std::string_view b) {
  return a.size() == b.size() && nettle_memeql_sec(a.data(), b.data(), a.size()) != 0;
}

std::string to_hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

namespace {
int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
}  // namespace

std::string from_hex(std::string_view hex) {
  if (hex.size() % 2 != 0) throw Error(ErrorKind::kUsage, "malformed hex string: odd length " + std::to_string(hex.size()));
  std::string out(hex.size() / 2, '\0');
  for (std::size_t i = 0; i < out.size(); ++i) {
    int hi = hex_value(hex[2 * i]), lo = hex_value(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) throw Error(ErrorKind::kUsage, "malformed hex string: bad digit at offset " + std::to_string(2 * i));
    out[i] = static_cast<char>(hi << 4 | lo);
  }
  return out;
}

std::string make_job_secret_hex() { return to_hex(random_bytes(kSecretSize)); }

}  // namespace hvd
