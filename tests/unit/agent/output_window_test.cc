#include "agent/output_window.h"

#include <doctest/doctest.h>

using hvd::agent::OutputWindow;

TEST_CASE("OutputWindow closes at its limit and reopens on credit, reporting each change once") {
  OutputWindow w;
  w.set_limit(100);
  CHECK_FALSE(w.spend(60));
  CHECK(w.open());
  CHECK(w.spend(60));  // 120 in flight: closed now
  CHECK_FALSE(w.open());
  CHECK_FALSE(w.spend(10));   // already closed: no second report
  CHECK_FALSE(w.refund(20));  // 110: still closed
  CHECK(w.refund(20));        // 90: open again
  CHECK_FALSE(w.refund(1000));
  CHECK(w.in_flight() == 0);
}

TEST_CASE("OutputWindow without a limit never closes") {
  OutputWindow w;
  CHECK_FALSE(w.spend(1u << 30));
  CHECK(w.open());
}
