#include <doctest/doctest.h>

#include <algorithm>
#include <vector>

#include "runtime/engine/cycle_vote.h"

using namespace hvd::detail;

namespace {
// What the allreduce (min over ranks) does to the ranks' votes.
void reduce_min(std::vector<CycleVote*> votes) {
  for (std::size_t i = 0; i < votes[0]->size(); ++i) {
    std::uint8_t m = 255;
    for (auto* v : votes) m = std::min(m, v->data()[i]);
    for (auto* v : votes) v->data()[i] = m;
  }
}
}  // namespace

TEST_CASE("a slot is ready only when every rank is ready; a joined rank counts as ready for every slot") {
  CycleVote a, b, c;
  a.begin(4, {});
  b.begin(4, {});
  c.begin(4, {.joined = true});
  a.ready(1);
  a.ready(2);
  b.ready(2);
  b.ready(3);
  reduce_min({&a, &b, &c});
  CHECK_FALSE(a.ready_everywhere(0));
  CHECK_FALSE(a.ready_everywhere(1));
  CHECK(a.ready_everywhere(2));
  CHECK_FALSE(a.ready_everywhere(3));
  CHECK_FALSE(a.all_joined());
  CHECK_FALSE(a.full());
  CHECK_FALSE(a.any_new());
}

TEST_CASE("any rank's need for a full negotiation, new request or eviction reaches every rank") {
  CycleVote a, b;
  a.begin(3, {.needs_full = true, .has_new = false, .joined = true});
  b.begin(3, {.needs_full = false, .has_new = true, .joined = true});
  b.evict(1);
  reduce_min({&a, &b});
  for (auto* v : {&a, &b}) {
    CHECK(v->full());
    CHECK(v->any_new());
    CHECK(v->all_joined());
    CHECK(v->kept_everywhere(0));
    CHECK_FALSE(v->kept_everywhere(1));
    CHECK(v->kept_everywhere(2));
    CHECK(v->span() == 3);
  }
}

TEST_CASE("a vote is rebuilt from scratch each cycle, for the cache's current span") {
  CycleVote v;
  v.begin(2, {.needs_full = true});
  v.ready(0);
  v.evict(1);
  v.begin(5, {});
  CHECK(v.size() == 3 + 2 * 5);
  CHECK_FALSE(v.full());
  for (std::size_t s = 0; s < 5; ++s) {
    CHECK_FALSE(v.ready_everywhere(s));
    CHECK(v.kept_everywhere(s));
  }
}
