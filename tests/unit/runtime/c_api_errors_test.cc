// The C API's error kinds: each failing call sets hvd_last_error_kind() and hvd_last_error_info() from the
// hvd::Error's kind and context (one process, a job of one; kinds that need peers are in
// tests/integration/runtime_error_kinds.sh), and the translation keeps every kind of hvd::ErrorKind.
#include <doctest/doctest.h>

#include <string>
#include <thread>

#include "hvd/c_api.h"
#include "hvd/error.h"

TEST_CASE("C API: a thread with no failure reads kind none") {
  hvd_error_kind kind = HVD_ERROR_USAGE;
  hvd_error_info info{};
  std::thread([&] {
    kind = hvd_last_error_kind();
    hvd_last_error_info(&info);
  }).join();
  CHECK(kind == HVD_ERROR_NONE);
  CHECK(info.kind == HVD_ERROR_NONE);
  CHECK(info.rank == -1);
  CHECK(std::string(info.tensor).empty());
  hvd_last_error_info(nullptr);  // allowed, does nothing
}

TEST_CASE("C API: bad arguments are kind usage, with the tensor where the C++ checks know it") {
  float x[4] = {1, 2, 3, 4};
  CHECK(hvd_allreduce(x, x, 4, static_cast<hvd_dtype>(99), HVD_SUM, 1, 1, "t") == -1);
  CHECK(hvd_last_error_kind() == HVD_ERROR_USAGE);
  CHECK(std::string(hvd_last_error()).find("unknown dtype 99") != std::string::npos);

  REQUIRE(hvd_init() == 0);
  CHECK(hvd_broadcast(x, 4, HVD_FLOAT32, 5, "t.root") == -1);
  hvd_error_info info{};
  hvd_last_error_info(&info);
  CHECK(info.kind == HVD_ERROR_USAGE);
  CHECK(std::string(info.tensor) == "t.root");
  CHECK(std::string(hvd_last_error()).find("root 5 is not a rank") != std::string::npos);

  // A good call leaves the last failure as it was (the contract: valid until the next failing call).
  CHECK(hvd_allreduce(x, x, 4, HVD_FLOAT32, HVD_SUM, 1, 1, "t.ok") == 0);
  CHECK(hvd_last_error_kind() == HVD_ERROR_USAGE);
  CHECK(hvd_shutdown() == 0);

  // After shutdown the call fails on the missing runtime: a usage error (call hvd_init first).
  CHECK(hvd_allreduce(x, x, 4, HVD_FLOAT32, HVD_SUM, 1, 1, "t.late") == -1);
  CHECK(hvd_last_error_kind() == HVD_ERROR_USAGE);
}

TEST_CASE("hvd::Error keeps its kind and context through copies and exception_ptr") {
  std::exception_ptr p;
  try {
    throw hvd::Error(hvd::ErrorKind::kPeerLost, "recv: connection reset by rank 3",
                     {.rank = 1, .host = "h1", .peer = 3, .tensor = "grad/fc1"});
  } catch (...) {
    p = std::current_exception();
  }
  try {
    std::rethrow_exception(p);
  } catch (const hvd::Error& e) {
    hvd::Error copy = e;
    CHECK(copy.kind() == hvd::ErrorKind::kPeerLost);
    CHECK(copy.context().peer == 3);
    CHECK(copy.context().host == "h1");
    CHECK(copy.context().tensor == "grad/fc1");
    CHECK(std::string(to_string(copy.kind())) == "peer lost");
  }
  hvd::Error plain("unclassified");
  CHECK(plain.kind() == hvd::ErrorKind::kInternal);
  CHECK(plain.context().rank == -1);
  static_assert(std::is_nothrow_copy_constructible_v<hvd::Error>);
}
