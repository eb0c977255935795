#include <doctest/doctest.h>

#include "launcher/elastic/blacklist.h"

using hvd::launcher::elastic::Blacklist;
using hvd::launcher::elastic::CooldownRange;
using namespace std::chrono_literals;

TEST_CASE("blacklist: without a cool-down range a host stays out for good") {
  Blacklist list(std::nullopt);
  const auto now = Blacklist::Clock::now();
  CHECK_FALSE(list.contains("h1", now));
  CHECK_FALSE(list.add("h1", now).has_value());
  CHECK(list.contains("h1", now + 1000h));
  CHECK_FALSE(list.contains("h2", now));
  CHECK_FALSE(list.next_release(now).has_value());
}

TEST_CASE("blacklist: the cool-down doubles per failure from MIN, capped at MAX") {
  Blacklist list(CooldownRange{10, 35});
  const auto t0 = Blacklist::Clock::now();
  CHECK(list.add("h1", t0) == 10s);
  CHECK(list.contains("h1", t0 + 9s));
  CHECK_FALSE(list.contains("h1", t0 + 10s));
  CHECK(list.add("h1", t0 + 20s) == 20s);
  CHECK(list.contains("h1", t0 + 39s));
  CHECK_FALSE(list.contains("h1", t0 + 40s));
  CHECK(list.add("h1", t0 + 50s) == 35s);  // 40 s, capped
  CHECK(list.add("h1", t0 + 100s) == 35s);
  CHECK(list.next_release(t0 + 100s) == t0 + 135s);
  CHECK_FALSE(list.next_release(t0 + 135s).has_value());
}

TEST_CASE("blacklist: a forgotten entry is out no more and starts its count again") {
  Blacklist list(CooldownRange{10, 100});
  const auto t0 = Blacklist::Clock::now();
  list.add("h1/0", t0);
  list.add("h1/0", t0 + 20s);
  list.forget("h1/0");
  CHECK_FALSE(list.contains("h1/0", t0 + 21s));
  CHECK(list.add("h1/0", t0 + 30s) == 10s);
}
