// hvd::elastic::State and run() in a 1-rank job (no launcher environment): snapshots, restore, sync, callbacks,
// and what run() does outside an elastic job. The multi-rank behaviour is tested with real processes
// (tests/integration/elastic_runtime_*.sh).
#include <doctest/doctest.h>

#include <array>

#include "hvd/elastic.h"
#include "hvd/hvd.h"
#include "tests/unit/runtime/tracked_vector.h"

using hvd::elastic::State;
using hvd::elastic::Tracked;

namespace {
struct Initialized {
  Initialized() { hvd::init(); }
  ~Initialized() { hvd::shutdown(); }
};
}  // namespace

TEST_CASE("state: restore goes back to the last commit, or to the values tracked before any") {
  Initialized hvd_running;
  int step = 3;
  std::array<float, 4> params{1, 2, 3, 4};
  State state;
  state.track("step", step);
  state.track("params", params);
  step = 9;
  params[0] = 42;
  state.restore();
  CHECK(step == 3);
  CHECK(params[0] == 1);
  step = 5;
  params[1] = 7;
  state.commit();
  CHECK(state.commits() == 1);
  step = 6;
  params[1] = 8;
  state.restore();
  CHECK(step == 5);
  CHECK(params[1] == 7);
  state.restore();  // twice is the same
  CHECK(step == 5);
}

TEST_CASE("state: sync keeps rank 0's values (here, this rank's) and makes them the restore point") {
  Initialized hvd_running;
  double lr = 0.5;
  State state;
  state.track("lr", lr);
  lr = 0.25;
  state.sync();
  CHECK(lr == 0.25);
  lr = 1.0;
  state.restore();
  CHECK(lr == 0.25);
  CHECK(state.commits() == 0);  // a sync is not a commit
}

TEST_CASE("state: objects with their own save, load and sync") {
  Initialized hvd_running;
  std::vector<int> values{1, 2, 3};
  int syncs = 0;
  State state;
  state.track("values", hvd::test::tracked_vector(values, [&] { ++syncs; }));
  state.commit();
  values.push_back(4);
  state.restore();
  CHECK(values == std::vector<int>{1, 2, 3});
  state.sync();
  CHECK(syncs == 1);
  // Without a sync function, sync broadcasts the bytes: any length, including none.
  State other;
  other.track(
      "empty",
      Tracked{[&] { return std::vector<std::byte>{}; }, [&](std::span<const std::byte> b) { CHECK(b.empty()); }, {}});
  other.sync();
}

TEST_CASE("state: usage errors name the object") {
  Initialized hvd_running;
  int a = 0;
  State state;
  state.track("a", a);
  try {
    state.track("a", a);
    FAIL("a second track() under one name must throw");
  } catch (const hvd::Error& e) {
    CHECK(e.kind() == hvd::ErrorKind::kUsage);
    CHECK(std::string(e.what()).find("'a'") != std::string::npos);
  }
  CHECK_THROWS_WITH_AS(state.track("b", Tracked{}), doctest::Contains("'b'"), hvd::Error);  // no save, no load
}

TEST_CASE("state: reset callbacks run in the order they were added") {
  Initialized hvd_running;
  std::vector<int> order;
  State state;
  state.on_reset([&] { order.push_back(1); });
  state.on_reset([&] { order.push_back(2); });
  state.run_reset_callbacks();
  CHECK(order == std::vector<int>{1, 2});
}

TEST_CASE("run outside an elastic job: syncs, trains once, and lets errors through") {
  Initialized hvd_running;
  CHECK_FALSE(hvd::elastic::enabled());
  CHECK(hvd::elastic::generation() == -1);
  CHECK_FALSE(hvd::elastic::hosts_updated());
  int step = 0, calls = 0;
  State state;
  state.track("step", step);
  hvd::elastic::run(state, [&] {
    ++calls;
    step = 10;
    state.commit();
  });
  CHECK(calls == 1);
  CHECK(step == 10);
  calls = 0;
  CHECK_THROWS_AS(hvd::elastic::run(state,
                                    [&] {
                                      ++calls;
                                      throw hvd::Error(hvd::ErrorKind::kPeerLost, "a peer died");
                                    }),
                  hvd::Error);
  CHECK(calls == 1);  // no retry: a static job cannot re-form
  CHECK_THROWS_WITH_AS(hvd::elastic::reset(), doctest::Contains("outside an elastic job"), hvd::Error);
}
