// TcpStore's elastic ops against the in-test server: the rendezvous request and its answer, a refusal, a malformed
// answer, and interrupt() ending a wait from another thread.
#include <doctest/doctest.h>

#include <chrono>
#include <thread>

#include "hvd/error.h"
#include "store/tcp_store.h"
#include "tests/unit/runtime/store_test_server.h"

using namespace hvd::detail;
using namespace std::chrono_literals;

namespace {
nlohmann::json placed(std::int64_t generation) {
  return {{"ok", true},      {"generation", generation}, {"rank", 2},       {"size", 4},        {"local_rank", 0},
          {"local_size", 2}, {"cross_rank", 1},          {"cross_size", 2}, {"hostname", "h2"}, {"events", 5}};
}
}  // namespace

TEST_CASE("rendezvous sends the worker and the generation it had, and reads its place") {
  hvd::test::StoreTestServer server("s");
  TcpStore store("127.0.0.1", server.port(), "s", -1);
  server.answer_rendezvous(placed(3));
  auto a = store.rendezvous("h2/0", 1, 5s);
  auto request = server.last_rendezvous();
  CHECK(request.worker == "h2/0");
  CHECK(request.after == 1);
  CHECK(a.generation == 3);
  CHECK(a.rank == 2);
  CHECK(a.size == 4);
  CHECK(a.local_rank == 0);
  CHECK(a.local_size == 2);
  CHECK(a.cross_rank == 1);
  CHECK(a.cross_size == 2);
  CHECK(a.hostname == "h2");
  CHECK(a.events == 5);
}

TEST_CASE("a refused rendezvous is a membership error with hvdrun's reason; the store stays usable") {
  hvd::test::StoreTestServer server("s");
  TcpStore store("127.0.0.1", server.port(), "s", -1);
  server.answer_rendezvous({{"ok", false}, {"error", "host h2 was removed by the discovery script"}});
  try {
    store.rendezvous("h2/0", -1, 5s);
    FAIL("expected a refusal");
  } catch (const hvd::Error& e) {
    CHECK(e.kind() == hvd::ErrorKind::kMembership);
    CHECK(std::string(e.what()).find("host h2 was removed") != std::string::npos);
    CHECK(std::string(e.what()).find("h2/0") != std::string::npos);
  }
  store.set("k", "v");
  CHECK(store.get("k", 1s) == "v");
}

TEST_CASE("a malformed or inconsistent rendezvous answer names what is wrong") {
  hvd::test::StoreTestServer server("s");
  TcpStore store("127.0.0.1", server.port(), "s", -1);
  auto missing = placed(3);
  missing.erase("hostname");
  server.answer_rendezvous(missing);
  CHECK_THROWS_WITH_AS(store.rendezvous("h2/0", -1, 5s), doctest::Contains("hostname"), hvd::Error);
  server.answer_rendezvous(placed(1));  // not newer than the generation the worker had
  CHECK_THROWS_WITH_AS(store.rendezvous("h2/0", 1, 5s), doctest::Contains("inconsistent"), hvd::Error);
}

TEST_CASE("interrupt ends a waiting get at once, and later requests fail too") {
  hvd::test::StoreTestServer server("s");
  TcpStore store("127.0.0.1", server.port(), "s", -1);
  const auto start = std::chrono::steady_clock::now();
  std::jthread interrupter([&] {
    std::this_thread::sleep_for(100ms);
    store.interrupt();
  });
  CHECK_THROWS_WITH_AS(store.get("elastic/event/1", 60s), doctest::Contains("interrupted"), hvd::Error);
  CHECK(std::chrono::steady_clock::now() - start < 10s);
  CHECK_FALSE(store.channel_usable());
  CHECK_THROWS_AS(store.set("k", "v"), hvd::Error);
}
