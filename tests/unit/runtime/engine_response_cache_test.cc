#include <doctest/doctest.h>

#include "runtime/engine/response_cache.h"

using namespace hvd;
using namespace hvd::detail;

namespace {
Request request(const std::string& name, DataType dtype = DataType::kFloat32) {
  Request q;
  q.name = name;
  q.dtype = dtype;
  q.shape = {4};
  return q;
}
Response response(const std::string& name) {
  Response r;
  r.names = {name};
  r.shapes = {{4}};
  return r;
}
}  // namespace

TEST_CASE("cache: miss, hit, stale") {
  ResponseCache cache(4);
  CHECK(cache.lookup(request("a")).kind == ResponseCache::Kind::kMiss);
  cache.put(response("a"));
  auto hit = cache.lookup(request("a"));
  CHECK(hit.kind == ResponseCache::Kind::kHit);
  CHECK(cache.at(hit.slot).names.front() == "a");
  CHECK(cache.lookup(request("a", DataType::kFloat16)).kind == ResponseCache::Kind::kStale);
}

TEST_CASE("cache: least recently used slot is reused and reported") {
  ResponseCache cache(2);
  CHECK_FALSE(cache.put(response("a")));
  CHECK_FALSE(cache.put(response("b")));
  cache.touch(cache.lookup(request("a")).slot);  // b is now the oldest
  auto evicted = cache.put(response("c"));
  REQUIRE(evicted);
  CHECK(*evicted == 1);
  CHECK(cache.lookup(request("b")).kind == ResponseCache::Kind::kMiss);
  CHECK(cache.lookup(request("c")).slot == 1);
  CHECK(cache.span() == 2);
}

TEST_CASE("cache: erase frees the slot; capacity 0 caches nothing; only plain ops are cacheable") {
  ResponseCache cache(8);
  cache.put(response("a"));
  cache.put(response("b"));
  cache.erase(0);
  CHECK_FALSE(cache.has(0));
  cache.put(response("c"));
  CHECK(cache.lookup(request("c")).slot == 0);  // lowest free slot keeps the bit vector short
  ResponseCache none(0);
  none.put(response("a"));
  CHECK(none.lookup(request("a")).kind == ResponseCache::Kind::kMiss);
  auto q = request("g");
  CHECK(ResponseCache::cacheable(q));
  q.group = "grp";
  CHECK_FALSE(ResponseCache::cacheable(q));
  q = request("g");
  q.type = OpType::kAllgather;
  CHECK_FALSE(ResponseCache::cacheable(q));
}
