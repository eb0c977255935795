// The elastic C++ API in a static job (hvdrun without --min-np): State::sync gives every rank rank 0's values, also
// for objects whose size differs by rank; restore() returns to the commit; run() calls train() once; and
// hosts_updated() is false. One line per check, on every rank; exit 0 when all hold, 1 naming the first that fails.
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "hvd/elastic.h"
#include "hvd/hvd.h"
#include "tests/unit/runtime/tracked_vector.h"

namespace {
bool check(bool ok, const std::string& what) {
  std::printf("%s %s\n", ok ? "ok" : "FAILED", what.c_str());
  std::fflush(stdout);
  return ok;
}
}  // namespace

int main() {
  try {
    hvd::init();
    const int rank = hvd::rank();
    int value = 100 + rank;
    std::vector<int> items(static_cast<std::size_t>(rank + 1), rank);  // rank r holds r+1 items
    hvd::elastic::State state;
    state.track("value", value);
    state.track("items", hvd::test::tracked_vector(items));
    bool all = true;
    int calls = 0;
    hvd::elastic::run(state, [&] { ++calls; });
    all &= check(calls == 1, "run calls=" + std::to_string(calls));
    all &= check(value == 100 && items == std::vector<int>{0},
                 "sync value=" + std::to_string(value) + " items=" + std::to_string(items.size()));
    value = 7 + rank;
    state.commit();
    value = -1;
    items.assign(5, -1);
    state.restore();
    all &= check(value == 7 + rank && items == std::vector<int>{0},
                 "restore value=" + std::to_string(value) + " items=" + std::to_string(items.size()));
    all &= check(!hvd::elastic::enabled() && !hvd::elastic::hosts_updated() && hvd::elastic::generation() == -1,
                 "static job: not elastic, no hosts update");
    hvd::shutdown();
    return all ? 0 : 1;
  } catch (const std::exception& e) {
    std::printf("FAILED with %s\n", e.what());
    return 1;
  }
}
