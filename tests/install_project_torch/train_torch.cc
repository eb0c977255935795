// A LibTorch user's program: each rank's tensor holds rank+1; the averaged allreduce must give (size+1)/2.
#include <hvd/torch.h>

#include <cstdio>

int main() {
  hvd::init();
  auto t = torch::full({100}, static_cast<float>(hvd::rank() + 1));
  auto avg = hvd::torch::allreduce(t, {.name = "t"});
  const float want = (hvd::size() + 1) / 2.0f;
  if (!torch::allclose(avg, torch::full({100}, want))) {
    std::printf("rank %d: got %f, want %f\n", hvd::rank(), avg[0].item<float>(), want);
    return 1;
  }
  std::printf("rank %d of %d: torch allreduce ok\n", hvd::rank(), hvd::size());
  hvd::shutdown();
  return 0;
}
