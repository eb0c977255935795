#include "common/address.h"

#include <doctest/doctest.h>
#include <netdb.h>

#include "common/error.h"
#include "tests/unit/error_of.h"

using hvd::Address;
using hvd::parse_address;
using hvd::test::error_of;

TEST_CASE("parse_address: a name, an IPv4 address and a bracketed IPv6 address") {
  CHECK(parse_address("h1:4000", "x") == Address{"h1", 4000});
  CHECK(parse_address("10.0.0.1:1", "x") == Address{"10.0.0.1", 1});
  CHECK(parse_address("[fe80::1]:65535", "x") == Address{"fe80::1", 65535});
  CHECK(parse_address("[::1]:22", "x") == Address{"::1", 22});
}

TEST_CASE("Address::to_string brackets an IPv6 host, and parses back to itself") {
  CHECK(Address{"h1", 4000}.to_string() == "h1:4000");
  CHECK(Address{"fe80::1", 4000}.to_string() == "[fe80::1]:4000");
  for (const Address& a : {Address{"h1", 1}, Address{"::1", 22}, Address{"192.0.2.7", 65535}}) {
    CHECK(parse_address(a.to_string(), "x") == a);
  }
}

TEST_CASE("parse_address: bad input is a usage error naming the value and the flag") {
  const auto not_host_port = [](const char* text) {
    return error_of<hvd::UsageError>([&] { parse_address(text, "--coordinator"); });
  };
  for (const char* text : {"no-port", ":4000", "h1:", "[fe80::1]", "[fe80::1]4000", "[]:4000", ""}) {
    CAPTURE(text);
    CHECK(not_host_port(text) == "--coordinator '" + std::string(text) + "' is not HOST:PORT (e.g. 10.0.0.1:4000)");
  }
  for (const char* text : {"h1:0", "h1:65536", "h1:http", "h1:40x", "[::1]:-1"}) {
    CAPTURE(text);
    CHECK(not_host_port(text) == "--coordinator '" + std::string(text) + "': the port must be a number from 1 to 65535");
  }
}

TEST_CASE("host_of: the host of host:port, for logs keyed by peer") {
  CHECK(hvd::host_of("10.0.0.1:4000") == "10.0.0.1");
  CHECK(hvd::host_of("[fe80::1]:4000") == "fe80::1");
  CHECK(hvd::host_of("plain") == "plain");
}

TEST_CASE("resolve: numeric addresses, and a name that does not resolve says why") {
  const auto v4 = hvd::resolve("127.0.0.1", 4000, {.numeric_only = true});
  REQUIRE(static_cast<bool>(v4));
  CHECK(v4.list->ai_family == AF_INET);
  const auto v6 = hvd::resolve("::1", 0, {.numeric_only = true});
  REQUIRE(static_cast<bool>(v6));
  CHECK(v6.list->ai_family == AF_INET6);
  const auto bad = hvd::resolve("not an address", 0, {.numeric_only = true});
  CHECK_FALSE(static_cast<bool>(bad));
  CHECK_FALSE(bad.error.empty());
}
