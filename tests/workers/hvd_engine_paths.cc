// Engine paths worker: the per-step fast path (a waiting or submitting thread runs the cycle) mixed with
// everything that must still go through negotiation. Every result is checked exactly; the first wrong value
// exits 1 naming the phase, step, tensor and element.
//  1. interleave: 40 steps of the same 6 tensors (cache hits), submitted in turn as one batch, one by one async,
//     and blocking; every 3rd step adds a fresh name (uncached), an allgather (never cached) and a broadcast.
//  2. behind: the last rank sleeps 1 s, then submits 30 steps x 4 distinct tensors in reverse order while the
//     others submitted all of theirs at once and wait: a backlog of 120 ops negotiated in one go.
//  3. join: rank r runs 4 * (r + 1) cached steps, then joins; later steps must sum only the ranks still in.
// Run with a small HOROVOD_CACHE_CAPACITY too, so that eviction and renegotiation happen mid-step.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "hvd/hvd.h"

namespace {

int rank_, size_;

void expect(bool ok, const std::string& what) {
  if (ok) return;
  std::fprintf(stderr, "rank %d: %s\n", rank_, what.c_str());
  std::exit(1);
}

void check_all(const std::vector<float>& v, float want, const std::string& what) {
  for (std::size_t i = 0; i < v.size(); ++i)
    expect(v[i] == want, what + " element " + std::to_string(i) + " is " + std::to_string(v[i]) + ", expected " +
                             std::to_string(want));
}

hvd::TensorView view(std::vector<float>& v) {
  return {v.data(), hvd::DataType::kFloat32, {static_cast<std::int64_t>(v.size())}, {}};
}

// Sum over ranks of (rank + 1) * step: what each tensor of a step reduces to.
float sum_of(int step, int ranks) { return static_cast<float>(step) * ranks * (ranks + 1) / 2; }

const std::vector<std::size_t> kSizes = {1, 7, 33, 1000, 4096, 70000};

void interleave() {
  std::vector<std::vector<float>> ts(kSizes.size());
  std::vector<std::string> names;
  for (std::size_t k = 0; k < kSizes.size(); ++k) names.push_back("step/" + std::to_string(k));
  for (int step = 1; step <= 40; ++step) {
    for (std::size_t k = 0; k < kSizes.size(); ++k) ts[k].assign(kSizes[k], static_cast<float>((rank_ + 1) * step));
    const hvd::AllreduceOptions sum{hvd::ReduceOp::kSum, 1, 1, ""};
    std::vector<hvd::TensorView> views;
    for (auto& t : ts) views.push_back(view(t));
    if (step % 3 == 0) {
      // Uncached work in the same step: a fresh name, an allgather, a broadcast.
      std::vector<float> fresh(5, static_cast<float>(rank_ + 1));
      auto f =
          hvd::allreduce_async(view(fresh), view(fresh), {hvd::ReduceOp::kSum, 1, 1, "fresh/" + std::to_string(step)});
      std::vector<float> g(static_cast<std::size_t>(rank_ + 1), static_cast<float>(rank_));
      auto gh = hvd::allgather_async(view(g), {"gather/" + std::to_string(step), {}});
      std::vector<float> b(3, rank_ == 1 % size_ ? static_cast<float>(step) : -1.0f);
      hvd::broadcast(view(b), {1 % size_, "bcast"});
      check_all(b, static_cast<float>(step), "interleave step " + std::to_string(step) + " broadcast");
      f.wait();
      check_all(fresh, sum_of(1, size_), "interleave step " + std::to_string(step) + " fresh");
      gh.wait();
      const auto& out = gh.output();
      expect(out.shape[0] == size_ * (size_ + 1) / 2, "interleave allgather: wrong first dimension");
      const float* p = static_cast<const float*>(out.data);
      for (int r = 0, i = 0; r < size_; ++r)
        for (int j = 0; j <= r; ++j, ++i) expect(p[i] == static_cast<float>(r), "interleave allgather: wrong value");
    }
    if (step % 3 == 0) {
      for (auto& h : hvd::allreduce_batch_async(views, views, names, sum)) h.wait();
    } else if (step % 3 == 1) {
      std::vector<hvd::Handle> hs;
      for (std::size_t k = 0; k < views.size(); ++k) {
        auto o = sum;
        o.name = names[k];
        hs.push_back(hvd::allreduce_async(views[k], views[k], o));
      }
      for (auto& h : hs) h.wait();
    } else {
      for (std::size_t k = 0; k < views.size(); ++k) {
        auto o = sum;
        o.name = names[k];
        hvd::allreduce(views[k], views[k], o);
      }
    }
    for (std::size_t k = 0; k < ts.size(); ++k)
      check_all(ts[k], sum_of(step, size_), "interleave step " + std::to_string(step) + " " + names[k]);
  }
}

void behind() {
  constexpr int kSteps = 30, kPer = 4;
  std::vector<std::vector<float>> ts(kSteps * kPer);
  std::vector<hvd::Handle> hs(ts.size());
  const bool late = rank_ == size_ - 1;
  if (late) std::this_thread::sleep_for(std::chrono::seconds(1));
  for (int n = 0; n < kSteps * kPer; ++n) {
    const int i = late ? kSteps * kPer - 1 - n : n;  // the late rank submits in reverse order
    const int step = i / kPer + 1;
    ts[i].assign(static_cast<std::size_t>(1 + i % 5 * 100), static_cast<float>((rank_ + 1) * step));
    hs[i] = hvd::allreduce_async(view(ts[i]), view(ts[i]), {hvd::ReduceOp::kSum, 1, 1, "behind/" + std::to_string(i)});
  }
  for (int i = 0; i < kSteps * kPer; ++i) {
    hs[i].wait();
    check_all(ts[i], sum_of(i / kPer + 1, size_), "behind tensor " + std::to_string(i));
  }
}

void join_phase() {
  std::vector<float> a, b;
  const int mine = 4 * (rank_ + 1);
  for (int step = 1; step <= mine; ++step) {
    a.assign(100, static_cast<float>(rank_ + 1));
    b.assign(3000, static_cast<float>(rank_ + 1));
    std::vector<hvd::TensorView> v = {view(a), view(b)};
    for (auto& h : hvd::allreduce_batch_async(v, v, {"join/a", "join/b"}, {hvd::ReduceOp::kSum, 1, 1, ""})) h.wait();
    // Ranks r with 4 * (r + 1) >= step are still in: r >= ceil(step / 4) - 1.
    const int first_in = (step + 3) / 4 - 1;
    float want = 0;
    for (int r = first_in; r < size_; ++r) want += static_cast<float>(r + 1);
    check_all(a, want, "join step " + std::to_string(step) + " a");
    check_all(b, want, "join step " + std::to_string(step) + " b");
  }
  const int last = hvd::join();
  expect(last == size_ - 1,
         "join: last joined rank " + std::to_string(last) + ", expected " + std::to_string(size_ - 1));
}

}  // namespace

int main() {
  hvd::init();
  rank_ = hvd::rank();
  size_ = hvd::size();
  interleave();
  behind();
  join_phase();
  interleave();  // the cache still works after a join
  hvd::shutdown();
  std::printf("rank %d: engine paths ok\n", rank_);
  return 0;
}
