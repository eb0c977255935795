// Bridging torch::Tensor <-> TensorView, fp16 compression, and the tensor collectives (rank-agnostic checks).
#include <string>

#include "tests/unit/torch/torch_test_util.h"

namespace ht = hvd::torch;
using hvd::torch::testing::ensure_init;
using hvd::torch::testing::named;

TEST_CASE("view_of maps dtype, shape, data and device") {
  auto t = torch::arange(12, torch::kFloat32).reshape({3, 4});
  auto v = ht::view_of(t);
  CHECK(v.data == t.data_ptr());
  CHECK(v.dtype == hvd::DataType::kFloat32);
  CHECK((v.shape == std::vector<std::int64_t>{3, 4}));
  CHECK_FALSE(v.device.is_gpu());
  CHECK(ht::view_of(torch::tensor(3.0)).shape.empty());
}

TEST_CASE("dtypes round trip and unsupported ones are named") {
  for (auto dtype : {torch::kUInt8, torch::kInt8, torch::kInt16, torch::kInt32, torch::kInt64, torch::kFloat16,
                     torch::kBFloat16, torch::kFloat32, torch::kFloat64, torch::kBool}) {
    CHECK((ht::to_torch_dtype(ht::to_hvd_dtype(dtype)) == dtype));
  }
  CHECK_THROWS_WITH_AS(ht::view_of(torch::zeros({2}, torch::kComplexFloat), "grad 'w'"),
                       doctest::Contains("ComplexFloat"), hvd::Error);
  CHECK_THROWS_WITH_AS(ht::view_of(torch::zeros({2}, torch::kComplexFloat), "grad 'w'"),
                       doctest::Contains("grad 'w'"), hvd::Error);
}

TEST_CASE("non-contiguous and undefined tensors are refused with their name") {
  auto t = torch::zeros({4, 3}).t();
  CHECK_THROWS_WITH_AS(ht::view_of(t, "tensor 'x'"), doctest::Contains("not contiguous"), hvd::Error);
  CHECK_THROWS_WITH_AS(ht::view_of(t, "tensor 'x'"), doctest::Contains("tensor 'x'"), hvd::Error);
  CHECK_THROWS_AS(ht::view_of(torch::Tensor()), hvd::Error);
}

TEST_CASE("fp16 compression round trip") {
  torch::manual_seed(1);
  auto x = torch::randn({1000}, torch::kFloat32);
  auto c = ht::compress(x, ht::Compression::kFP16);
  CHECK((c.scalar_type() == torch::kFloat16));
  auto d = ht::decompress(c, torch::kFloat32, ht::Compression::kFP16);
  CHECK((d.scalar_type() == torch::kFloat32));
  CHECK(torch::allclose(d, x, /*rtol=*/1e-3, /*atol=*/1e-4));
  auto ints = torch::arange(5, torch::kInt64);
  CHECK((ht::compress(ints, ht::Compression::kFP16).scalar_type() == torch::kInt64));
  CHECK(ht::compress(x, ht::Compression::kNone).is_same(x));
  CHECK(ht::decompress(x, torch::kFloat32, ht::Compression::kNone).is_same(x));
}

TEST_CASE("tensor collectives") {
  ensure_init();
  const int rank = hvd::rank(), size = hvd::size();

  SUBCASE("allreduce, out of place and in place, sum and average") {
    auto t = torch::full({3}, rank + 1.0);
    auto sum = ht::allreduce(t, {.op = hvd::ReduceOp::kSum, .name = "t/sum"});
    CHECK(torch::allclose(sum, torch::full({3}, size * (size + 1) / 2.0)));
    CHECK(t.equal(torch::full({3}, rank + 1.0)));  // out of place leaves the input alone
    ht::allreduce_(t, {.op = hvd::ReduceOp::kAverage, .name = "t/avg"});
    CHECK(torch::allclose(t, torch::full({3}, (size + 1) / 2.0)));
    auto h = ht::allreduce_async(torch::ones({2, 2}, torch::kFloat64), {.op = hvd::ReduceOp::kSum, .name = "t/async"});
    CHECK(h.wait().equal(torch::full({2, 2}, static_cast<double>(size), torch::kFloat64)));
  }
  SUBCASE("allgather concatenates rows of different counts") {
    auto t = torch::full({rank + 1, 2}, static_cast<float>(rank));
    auto g = ht::allgather(t, named<hvd::AllgatherOptions>("t/gather"));
    REQUIRE(g.size(0) == size * (size + 1) / 2);
    std::int64_t row = 0;
    for (int r = 0; r < size; ++r) {
      CHECK(g.slice(0, row, row + r + 1).eq(r).all().item<bool>());
      row += r + 1;
    }
  }
  SUBCASE("broadcast from root, in place and out of place") {
    auto t = torch::full({4}, static_cast<float>(rank));
    auto b = ht::broadcast(t, {.root = 0, .name = "t/bcast"});
    CHECK(b.eq(0).all().item<bool>());
    ht::broadcast_(t, {.root = size - 1, .name = "t/bcast_"});
    CHECK(t.eq(size - 1).all().item<bool>());
  }
  SUBCASE("alltoall with equal parts") {
    auto t = torch::arange(size * 2, torch::kInt32) + 100 * rank;
    auto [out, splits] = ht::alltoall(t, named<hvd::AlltoallOptions>("t/alltoall"));
    REQUIRE(out.numel() == size * 2);
    for (int r = 0; r < size; ++r) CHECK(out[2 * r].item<int>() == 100 * r + 2 * rank);
    CHECK(splits == std::vector<std::int64_t>(size, 2));
  }
  SUBCASE("reducescatter sums and splits rows") {
    auto t = torch::ones({size * 2, 3});
    auto options = named<hvd::ReducescatterOptions>("t/rs");
    options.op = hvd::ReduceOp::kSum;
    auto out = ht::reducescatter(t, options);
    CHECK(out.sizes() == torch::IntArrayRef({2, 3}));
    CHECK(out.eq(size).all().item<bool>());
  }
  SUBCASE("broadcast_object and metric_average") {
    std::string mine = rank == 0 ? std::string("payload from root \0 with nul", 28) : "other";
    CHECK(ht::broadcast_object(mine, 0, "obj") == std::string("payload from root \0 with nul", 28));
    CHECK(ht::metric_average(rank, "rank") == doctest::Approx((size - 1) / 2.0));
  }
}
