#include "common/crypto.h"

#include <doctest/doctest.h>

#include "common/error.h"

using namespace hvd;

TEST_CASE("hmac_sha256 matches RFC 4231 test case 2") {
  CHECK(to_hex(hmac_sha256("Jefe", "what do ya want for nothing?")) ==
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

TEST_CASE("hex round trip and malformed hex") {
  std::string bytes = random_bytes(33);
  CHECK(from_hex(to_hex(bytes)) == bytes);
  CHECK_THROWS_AS(from_hex("abc"), Error);
  CHECK_THROWS_AS(from_hex("zz"), Error);
}

TEST_CASE("job secrets are 32 random bytes in hex, never repeated") {
  auto a = make_job_secret_hex(), b = make_job_secret_hex();
  CHECK(a.size() == 64);
  CHECK(a != b);
}

TEST_CASE("equal_constant_time compares length and content") {
  CHECK(equal_constant_time("abc", "abc"));
  CHECK_FALSE(equal_constant_time("abc", "abd"));
  CHECK_FALSE(equal_constant_time("abc", "abcd"));
}
