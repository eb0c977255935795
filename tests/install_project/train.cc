// A user's program: each rank contributes rank+1; the averaged allreduce must give (size+1)/2 everywhere.
#include <hvd/hvd.h>

#include <cstdio>
#include <vector>

static_assert(__cplusplus >= 202002L, "hvd::hvd (or the build line) must compile its users as C++20");

int main() {
  hvd::init();
  std::vector<float> values(1000, static_cast<float>(hvd::rank() + 1));
  hvd::TensorView view{values.data(), hvd::DataType::kFloat32, {1000}};
  hvd::allreduce(view, view, {.name = "values"});  // Average by default; designated initializers need C++20
  const float want = (hvd::size() + 1) / 2.0f;
  for (float v : values) {
    if (v != want) {
      std::printf("rank %d: got %f, want %f\n", hvd::rank(), v, want);
      return 1;
    }
  }
  std::printf("rank %d of %d: allreduce ok\n", hvd::rank(), hvd::size());
  hvd::shutdown();
  return 0;
}
