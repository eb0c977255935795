#include "common/crypto.h"

#include <doctest/doctest.h>

#include "common/error.h"

using namespace hvd;

TEST_CASE("hmac_sha256 matches RFC 4231 test case 2") {
  CHECK(to_hex(hmac_sha256("Jefe", "what do ya want for nothing?")) ==
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

TEST_CASE("hmac_sha256 matches RFC 4231 test cases 4 and 6 (a 25-byte key, a key longer than a block)") {
  std::string key25;
  for (int i = 1; i <= 25; ++i) key25.push_back(static_cast<char>(i));
  CHECK(to_hex(hmac_sha256(key25, std::string(50, '\xcd'))) ==
        "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b");
  CHECK(to_hex(hmac_sha256(std::string(131, '\xaa'), "Test Using Larger Than Block-Size Key - Hash Key First")) ==
        "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
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
