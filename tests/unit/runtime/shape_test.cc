// hvd::Shape (include/hvd/shape.h): a vector-like shape, inline up to kInline dimensions, on the heap past them.
#include "hvd/shape.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "hvd/types.h"

using hvd::Shape;
using Dims = std::vector<std::int64_t>;

TEST_CASE("shape: reads and compares like the vector it came from, on both sides of kInline") {
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, Shape::kInline, Shape::kInline + 1, std::size_t{20}}) {
    Dims dims;
    for (std::size_t i = 0; i < n; ++i) dims.push_back(static_cast<std::int64_t>(i + 2));
    const Shape s = dims;
    CHECK(s.size() == n);
    CHECK(s.empty() == (n == 0));
    CHECK(Dims(s.begin(), s.end()) == dims);
    CHECK(s == dims);
    CHECK(dims == s);
    CHECK(static_cast<Dims>(s) == dims);
    CHECK(s.vec() == dims);
    if (n > 0) {
      CHECK(s.front() == 2);
      CHECK(s.back() == static_cast<std::int64_t>(n + 1));
      CHECK(s[n - 1] == s.data()[n - 1]);
    }
  }
  CHECK(Shape{2, 3} != Shape{2, 3, 1});
  CHECK(Shape{2, 3} != Shape{3, 2});
  CHECK(Shape{0}.size() == 1);  // one dimension of zero, as std::vector<std::int64_t>{0}
}

TEST_CASE("shape: push_back past kInline moves the dimensions to the heap and keeps them") {
  Shape s;
  Dims want;
  for (std::int64_t d = 1; d <= 10; ++d) {
    s.push_back(d);
    want.push_back(d);
    CHECK(s == want);
  }
  s[7] = 42;
  CHECK(s[7] == 42);
  s.clear();
  CHECK(s.empty());
  s.assign(want.begin(), want.begin() + 3);
  CHECK(s == Dims{1, 2, 3});
}

TEST_CASE("shape: copies are independent; a moved-from shape is empty") {
  for (std::size_t n : {std::size_t{3}, std::size_t{9}}) {
    Shape a;
    for (std::size_t i = 0; i < n; ++i) a.push_back(static_cast<std::int64_t>(i));
    const Dims dims = a;
    Shape b = a;
    b[0] = 100;
    CHECK(a == dims);
    Shape c;
    c = a;
    CHECK(c == dims);
    Shape d = std::move(c);
    CHECK(d == dims);
    CHECK(c.empty());
    Shape e{7};
    e = std::move(d);
    CHECK(e == dims);
    CHECK(d.empty());
  }
}

TEST_CASE("shape: a TensorView still takes a braced list or a vector, and its element count follows") {
  float x[6] = {};
  hvd::TensorView a{x, hvd::DataType::kFloat32, {2, 3}, {}};
  hvd::TensorView b{x, hvd::DataType::kFloat32, Dims{6}, {}};
  CHECK(a.num_elements() == 6);
  CHECK(b.num_bytes() == 24);
  CHECK(hvd::TensorView{}.num_elements() == 1);  // a scalar
}
