// MemoryStore and PrefixStore: set/get/add, waiting, timeouts that name the key.
#include <doctest/doctest.h>

#include <thread>

#include "hvd/error.h"
#include "store/memory_store.h"
#include "store/prefix_store.h"

using namespace hvd::detail;
using namespace std::chrono_literals;

TEST_CASE("memory store sets, gets and adds") {
  MemoryStore s;
  s.set("a", "1");
  CHECK(s.get("a", 0ms) == "1");
  CHECK(s.add("n", 2) == 2);
  CHECK(s.add("n", 3) == 5);
  CHECK(s.get("n", 0ms) == "5");
}

TEST_CASE("memory store get waits for a later set") {
  MemoryStore s;
  std::jthread t([&] {
    std::this_thread::sleep_for(50ms);
    s.set("late", "x");
  });
  CHECK(s.get("late", 5000ms) == "x");
}

TEST_CASE("memory store timeout names the key") {
  MemoryStore s;
  try {
    s.get("missing/key", 20ms);
    FAIL("expected a timeout");
  } catch (const hvd::Error& e) {
    CHECK(std::string(e.what()).find("missing/key") != std::string::npos);
  }
  CHECK_THROWS_AS(s.wait({"x", "y"}, 10ms), hvd::Error);
}

TEST_CASE("prefix store keeps users apart") {
  MemoryStore s;
  PrefixStore a("a/", s), b("b/", s);
  a.set("k", "1");
  b.set("k", "2");
  CHECK(a.get("k", 0ms) == "1");
  CHECK(b.get("k", 0ms) == "2");
  CHECK(s.get("a/k", 0ms) == "1");
  CHECK(a.add("c", 1) == 1);
  CHECK(b.add("c", 7) == 7);
  CHECK(a.describe().find("a/") != std::string::npos);
}
