// TcpStore against a minimal in-test server speaking common/protocol.h's store link.
#include <doctest/doctest.h>

#include <thread>

#include "hvd/error.h"
#include "store/tcp_store.h"
#include "tests/unit/runtime/store_test_server.h"

using namespace hvd::detail;
using namespace std::chrono_literals;

TEST_CASE("tcp store sets, gets, adds and waits") {
  hvd::test::StoreTestServer server("s3cret");
  auto a = TcpStore::connect("127.0.0.1:" + std::to_string(server.port()), "s3cret", 0);
  TcpStore b("127.0.0.1", server.port(), "s3cret", 1);
  a->set("k", "v");
  CHECK(b.get("k", 1000ms) == "v");
  CHECK(a->add("n", 5) == 5);
  CHECK(b.add("n", -2) == 3);
  std::jthread late([&] {
    std::this_thread::sleep_for(50ms);
    b.set("late", "x");
  });
  CHECK(a->get("late", 5000ms) == "x");
}

TEST_CASE("tcp store timeout names the key and the store") {
  hvd::test::StoreTestServer server("s3cret");
  TcpStore s("127.0.0.1", server.port(), "s3cret", 0);
  try {
    s.get("nobody/sets/this", 50ms);
    FAIL("expected a timeout");
  } catch (const hvd::Error& e) {
    std::string m = e.what();
    CHECK(m.find("nobody/sets/this") != std::string::npos);
    CHECK(m.find("127.0.0.1:" + std::to_string(server.port())) != std::string::npos);
  }
  s.set("still", "usable");
  CHECK(s.get("still", 100ms) == "usable");
}

TEST_CASE("tcp store with the wrong secret fails to connect") {
  hvd::test::StoreTestServer server("right");
  CHECK_THROWS_AS(TcpStore("127.0.0.1", server.port(), "wrong", 0, 2000ms), hvd::Error);
}

TEST_CASE("bad store addresses are refused with the address in the message") {
  CHECK_THROWS_WITH_AS(TcpStore::connect("no-port", "s", 0), doctest::Contains("no-port"), hvd::Error);
}
