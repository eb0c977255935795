#include "launcher/plan/plan.h"

#include <doctest/doctest.h>

using hvd::launcher::HostSpec;
using hvd::launcher::make_plan;
using hvd::launcher::parse_host_list;
using hvd::launcher::PlanError;
using hvd::launcher::Slot;

TEST_CASE("plan: heterogeneous a:1,b:2 (the issue's example)") {
  const auto plan = make_plan(parse_host_list("a:1,b:2"), 0);
  REQUIRE(plan.size() == 3);
  CHECK(plan.slots[0] == Slot{"a", 0, 0, 1, 0, 2});
  CHECK(plan.slots[1] == Slot{"b", 1, 0, 2, 1, 2});
  CHECK(plan.slots[2] == Slot{"b", 2, 1, 2, 0, 1});
  CHECK(plan.hosts == parse_host_list("a:1,b:2"));
}

TEST_CASE("plan: homogeneous 2x4") {
  const auto plan = make_plan(parse_host_list("h1:4,h2:4"), 8);
  REQUIRE(plan.size() == 8);
  for (int rank = 0; rank < 8; ++rank) {
    const auto& slot = plan.slots[rank];
    CHECK(slot.rank == rank);
    CHECK(slot.host == (rank < 4 ? "h1" : "h2"));
    CHECK(slot.local_rank == rank % 4);
    CHECK(slot.local_size == 4);
    CHECK(slot.cross_rank == rank / 4);
    CHECK(slot.cross_size == 2);
  }
  CHECK(plan.ranks_on("h1") == std::vector<int>{0, 1, 2, 3});
  CHECK(plan.ranks_on("h2") == std::vector<int>{4, 5, 6, 7});
  CHECK(plan.ranks_on("h3").empty());
}

TEST_CASE("plan: heterogeneous 3,1,2") {
  const auto plan = make_plan(parse_host_list("a:3,b:1,c:2"), 0);
  REQUIRE(plan.size() == 6);
  // local_rank 0 lives on a, b, c; 1 on a, c; 2 on a only.
  CHECK(plan.slots[0] == Slot{"a", 0, 0, 3, 0, 3});
  CHECK(plan.slots[1] == Slot{"a", 1, 1, 3, 0, 2});
  CHECK(plan.slots[2] == Slot{"a", 2, 2, 3, 0, 1});
  CHECK(plan.slots[3] == Slot{"b", 3, 0, 1, 1, 3});
  CHECK(plan.slots[4] == Slot{"c", 4, 0, 2, 2, 3});
  CHECK(plan.slots[5] == Slot{"c", 5, 1, 2, 1, 2});
}

TEST_CASE("plan: -np below the total takes the first slots in host order") {
  const auto plan = make_plan(parse_host_list("h1:2,h2:2,h3:2"), 3);
  REQUIRE(plan.size() == 3);
  CHECK(plan.slots[0] == Slot{"h1", 0, 0, 2, 0, 2});
  CHECK(plan.slots[1] == Slot{"h1", 1, 1, 2, 0, 1});
  CHECK(plan.slots[2] == Slot{"h2", 2, 0, 1, 1, 2});
  // h2 holds one rank, h3 none: the plan lists only the hosts used, with the ranks placed.
  REQUIRE(plan.hosts.size() == 2);
  CHECK(plan.hosts[0] == HostSpec{"", "h1", 2});
  CHECK(plan.hosts[1] == HostSpec{"", "h2", 1});
  CHECK(plan.ranks_on("h3").empty());
}

TEST_CASE("plan: one host, one rank") {
  const auto plan = make_plan({HostSpec{"", "localhost", 1}}, 1);
  REQUIRE(plan.size() == 1);
  CHECK(plan.slots[0] == Slot{"localhost", 0, 0, 1, 0, 1});
}

TEST_CASE("plan: users stay on the hosts, slots use the name") {
  const auto plan = make_plan(parse_host_list("alice@h1:1,h2:1"), 0);
  CHECK(plan.hosts[0].target() == "alice@h1");
  CHECK(plan.slots[0].host == "h1");
  CHECK(plan.ranks_on("h1") == std::vector<int>{0});
}

TEST_CASE("plan: -np above the slots names the shortfall") {
  try {
    make_plan(parse_host_list("h1:2,h2:2"), 8);
    FAIL("no error");
  } catch (const PlanError& e) {
    CHECK(std::string{e.what()} == "-np 8 but the hosts offer 4 slots (h1:2, h2:2); lower -np or add hosts");
  }
  CHECK_THROWS_AS(make_plan({}, 1), PlanError);
  CHECK_THROWS_AS(make_plan({HostSpec{"", "h1", 0}}, 0), PlanError);
  // A PlanError is a usage error: exit code 2.
  CHECK_THROWS_AS(make_plan({}, 1), hvd::UsageError);
}
