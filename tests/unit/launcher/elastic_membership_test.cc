#include <doctest/doctest.h>

#include "launcher/elastic/membership.h"

using hvd::launcher::parse_host_list;
using hvd::launcher::elastic::Membership;
using Answer = Membership::Answer;

namespace {

// Starts a worker on every slot the membership asks for; returns their ids.
std::vector<int> start_all(Membership& m) {
  std::vector<int> ids;
  for (const auto& [host, slot] : m.slots_to_start()) ids.push_back(m.add_worker(host, slot));
  return ids;
}

}  // namespace

TEST_CASE("membership: the first generation forms once every worker waits, ranks by host order then slot") {
  Membership m(2, 0);
  CHECK(m.set_hosts(parse_host_list("b:2,a:1")).added == std::vector<std::string>{"b", "a"});
  const auto ids = start_all(m);
  REQUIRE(ids.size() == 3);
  CHECK(m.rendezvous("a/0", -1).answer == Answer::kWait);
  CHECK(m.rendezvous("b/1", -1).answer == Answer::kWait);
  CHECK_FALSE(m.try_form());  // b/0 is not there yet
  const auto first = m.rendezvous("b/0", -1);
  CHECK(first.answer == Answer::kWait);
  CHECK_FALSE(first.announce_reset);  // nobody is training yet
  const auto g = m.try_form();
  REQUIRE(g);
  CHECK(g->number == 0);
  REQUIRE(g->placements.size() == 3);
  CHECK(g->placements[0].host == "b");
  CHECK(g->placements[0].local_rank == 0);
  CHECK(g->placements[1].host == "b");
  CHECK(g->placements[1].local_rank == 1);
  CHECK(g->placements[1].local_size == 2);
  CHECK(g->placements[2].host == "a");
  CHECK(g->placements[2].cross_rank == 1);
  CHECK(g->placements[2].cross_size == 2);
  CHECK_FALSE(m.try_form());  // nobody waits any more
}

TEST_CASE("membership: a lost host's workers leave; the survivors re-form with rank 0 kept") {
  Membership m(2, 0);
  m.set_hosts(parse_host_list("h1:1,h2:1,h3:1"));
  start_all(m);
  for (auto name : {"h1/0", "h2/0", "h3/0"}) m.rendezvous(name, -1);
  REQUIRE(m.try_form());
  for (int id : m.remove_host("h1")) m.exited(id);
  CHECK(m.live() == 2);
  // The first survivor to notice asks for a reset; the second finds one announced already.
  CHECK(m.rendezvous("h3/0", 0).announce_reset);
  CHECK_FALSE(m.rendezvous("h2/0", 0).announce_reset);
  const auto g = m.try_form();
  REQUIRE(g);
  CHECK(g->number == 1);
  REQUIRE(g->placements.size() == 2);
  CHECK(g->placements[0].host == "h2");
  CHECK(g->placements[1].host == "h3");
  CHECK(m.rendezvous("h1/0", 1).answer == Answer::kNoPlace);
}

TEST_CASE("membership: below min_np no generation forms") {
  Membership m(2, 0);
  m.set_hosts(parse_host_list("h1:1,h2:1"));
  start_all(m);
  for (auto name : {"h1/0", "h2/0"}) m.rendezvous(name, -1);
  REQUIRE(m.try_form());
  for (int id : m.remove_host("h2")) m.exited(id);
  m.rendezvous("h1/0", 0);
  CHECK_FALSE(m.try_form());
  // A new host brings it back to min_np: its worker joins after the survivor, at rank 1.
  CHECK(m.set_hosts(parse_host_list("h1:1,h4:1")).added == std::vector<std::string>{"h4"});
  start_all(m);
  m.rendezvous("h4/0", -1);
  const auto g = m.try_form();
  REQUIRE(g);
  CHECK(g->placements[0].host == "h1");
  CHECK(g->placements[1].host == "h4");
}

TEST_CASE("membership: max_np caps the slots started; a removed host's slots go to a spare host") {
  Membership m(1, 3);
  m.set_hosts(parse_host_list("h1:2,h2:2"));
  CHECK(m.usable_slots() == 3);
  const auto first = m.slots_to_start();
  REQUIRE(first.size() == 3);
  CHECK(first[2] == std::pair<std::string, int>{"h2", 0});
  for (const auto& [host, slot] : first) m.add_worker(host, slot);
  CHECK(m.slots_to_start().empty());
  const auto change = m.set_hosts(parse_host_list("h2:2"));
  CHECK(change.removed == std::vector<std::string>{"h1"});
  const auto orphans = m.workers_without_slot();
  CHECK(orphans.size() == 2);
  for (int id : orphans) m.retire(id);
  CHECK(m.slots_to_start() == std::vector<std::pair<std::string, int>>{{"h2", 1}});
  CHECK(m.rendezvous("h1/0", -1).answer == Answer::kNoPlace);
}

TEST_CASE("membership: a worker whose answer was lost gets its generation again") {
  Membership m(1, 0);
  m.set_hosts(parse_host_list("h1:1"));
  start_all(m);
  m.rendezvous("h1/0", -1);
  REQUIRE(m.try_form());
  const auto again = m.rendezvous("h1/0", -1);
  CHECK(again.answer == Answer::kPlaced);
  REQUIRE(again.placement);
  CHECK(again.placement->generation == 0);
}

TEST_CASE("membership: the generation has exited once all its workers have") {
  Membership m(1, 0);
  m.set_hosts(parse_host_list("h1:2"));
  const auto ids = start_all(m);
  CHECK_FALSE(m.generation_exited());
  for (auto name : {"h1/0", "h1/1"}) m.rendezvous(name, -1);
  REQUIRE(m.try_form());
  m.exited(ids[0]);
  CHECK_FALSE(m.generation_exited());
  m.exited(ids[1]);
  CHECK(m.generation_exited());
}

TEST_CASE("membership: an excluded slot gets no worker and does not count towards max_np") {
  Membership m(1, 2);
  m.set_hosts(parse_host_list("h1:2,h2:2"));
  const auto ids = start_all(m);
  REQUIRE(ids.size() == 2);
  m.exited(ids[1]);  // h1/1 failed
  m.set_excluded_slots({{"h1", 1}});
  CHECK(m.usable_slots() == 2);
  CHECK(m.slots_to_start() == std::vector<std::pair<std::string, int>>{{"h2", 0}});
  m.set_excluded_slots({{"h1", 0}});  // a running worker's slot taken out: it has no place
  CHECK(m.workers_without_slot() == std::vector<int>{ids[0]});
  m.set_excluded_slots({});
  CHECK(m.workers_without_slot().empty());
}

TEST_CASE("membership: a worker's prospective place is the one the generation it joins gives it") {
  Membership m(2, 0);
  m.set_hosts(parse_host_list("b:2,a:1"));
  const auto ids = start_all(m);
  REQUIRE(ids.size() == 3);
  std::vector<hvd::launcher::elastic::Placement> before;
  for (int id : ids) {
    auto p = m.prospective(id);
    REQUIRE(p);
    before.push_back(*p);
  }
  for (const char* name : {"a/0", "b/1", "b/0"}) m.rendezvous(name, -1);
  const auto g = m.try_form();
  REQUIRE(g);
  for (const auto& placed : g->placements) {
    const auto& p = before[static_cast<std::size_t>(placed.worker - ids.front())];
    CHECK(p.worker == placed.worker);
    CHECK(p.generation == g->number);
    CHECK(p.rank == placed.rank);
    CHECK(p.size == placed.size);
    CHECK(p.local_rank == placed.local_rank);
    CHECK(p.local_size == placed.local_size);
    CHECK(p.cross_rank == placed.cross_rank);
    CHECK(p.cross_size == placed.cross_size);
  }
  CHECK_FALSE(m.prospective(ids.back() + 100));  // no such worker
}
