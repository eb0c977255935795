#include "common/crypto.h"

// OpenSSL 3 deprecates the low-level digests in favour of EVP, but EVP's first use in a process loads the
// configuration and the default provider (~1 ms, paid by hvdrun, every agent and every worker at start) and each
// HMAC() call fetches its algorithm again. SHA-256 itself is the same code either way.
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/crypto.h>
#include <openssl/sha.h>
#include <sys/random.h>

#include <cerrno>
#include <cstring>

#include "common/error.h"

namespace hvd {

// RFC 2104 over SHA-256: H((K ^ opad) || H((K ^ ipad) || data)), a key longer than a block hashed first.
std::string hmac_sha256(std::string_view key, std::string_view data) {
  unsigned char block[SHA256_CBLOCK] = {};
  if (key.size() > sizeof block) {
    SHA256(reinterpret_cast<const unsigned char*>(key.data()), key.size(), block);
  } else {
    std::memcpy(block, key.data(), key.size());
  }
  unsigned char pad[SHA256_CBLOCK];
  unsigned char inner[SHA256_DIGEST_LENGTH];
  SHA256_CTX ctx;
  for (std::size_t i = 0; i < sizeof pad; ++i) pad[i] = block[i] ^ 0x36;
  SHA256_Init(&ctx);
  SHA256_Update(&ctx, pad, sizeof pad);
  SHA256_Update(&ctx, data.data(), data.size());
  SHA256_Final(inner, &ctx);
  for (std::size_t i = 0; i < sizeof pad; ++i) pad[i] = block[i] ^ 0x5c;
  std::string mac(kMacSize, '\0');
  SHA256_Init(&ctx);
  SHA256_Update(&ctx, pad, sizeof pad);
  SHA256_Update(&ctx, inner, sizeof inner);
  SHA256_Final(reinterpret_cast<unsigned char*>(mac.data()), &ctx);
  OPENSSL_cleanse(block, sizeof block);
  OPENSSL_cleanse(pad, sizeof pad);
  return mac;
}

// The kernel's CSPRNG, which is what OpenSSL's RAND seeds from; getrandom blocks only before the pool is ready.
std::string random_bytes(std::size_t n) {
  std::string out(n, '\0');
  for (std::size_t done = 0; done < n;) {
    ssize_t got = ::getrandom(out.data() + done, n - done, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) throw Error(std::string("getrandom failed: no entropy for the job secret: ") + std::strerror(errno));
    done += static_cast<std::size_t>(got);
  }
  return out;
}

bool equal_constant_time(std::string_view a, std::string_view b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
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
  if (hex.size() % 2 != 0) throw Error("malformed hex string: odd length " + std::to_string(hex.size()));
  std::string out(hex.size() / 2, '\0');
  for (std::size_t i = 0; i < out.size(); ++i) {
    int hi = hex_value(hex[2 * i]), lo = hex_value(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) throw Error("malformed hex string: bad digit at offset " + std::to_string(2 * i));
    out[i] = static_cast<char>(hi << 4 | lo);
  }
  return out;
}

std::string make_job_secret_hex() { return to_hex(random_bytes(kSecretSize)); }

}  // namespace hvd
