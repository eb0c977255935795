// The whole engine with ranks as threads over the test communicator (engine_thread_comm.h).
#include <doctest/doctest.h>
#include <sys/resource.h>

#include <functional>
#include <future>
#include <thread>

#include "engine_thread_comm.h"
#include "hvd/error.h"
#include "hvd/handle.h"
#include "runtime/engine/engine.h"
#include "runtime/engine/scale.h"
#include "runtime/reduce/half.h"
#include "runtime/reduce/reduce.h"

using namespace hvd;
using namespace hvd::detail;
using namespace hvd::detail::fp16;
using namespace std::chrono_literals;

namespace {

struct Job {
  Job(int n, Config config = {}) : hub(std::make_shared<test::ThreadHub>(n)) {
    for (int r = 0; r < n; ++r) comms.push_back(std::make_unique<test::ThreadComm>(hub, r));
    for (auto& c : comms) peers.push_back(c.get());
    for (auto& c : comms) c->set_peers(&peers);
    for (int r = 0; r < n; ++r) engines.push_back(std::make_unique<Engine>(config, *comms[r]));
  }
  ~Job() {
    on_all([](int, Engine& e) { e.shutdown(); });
  }
  void on_all(const std::function<void(int, Engine&)>& f) {
    std::vector<std::thread> ts;
    for (int r = 0; r < static_cast<int>(engines.size()); ++r) ts.emplace_back([&, r] { f(r, *engines[r]); });
    for (auto& t : ts) t.join();
  }
  std::shared_ptr<test::ThreadHub> hub;
  std::vector<std::unique_ptr<test::ThreadComm>> comms;
  std::vector<test::ThreadComm*> peers;
  std::vector<std::unique_ptr<Engine>> engines;
};

Handle allreduce(Engine& e, int rank, const std::string& name, void* in, void* out, std::int64_t n,
                 DataType dtype = DataType::kFloat32, ReduceOp op = ReduceOp::kSum) {
  auto state = std::make_shared<HandleState>(1);
  Request q;
  q.rank = rank;
  q.name = name;
  q.dtype = dtype;
  q.shape = {n};
  q.reduce_op = op;
  std::vector<TensorEntry> v;
  v.push_back(TensorEntry{q, TensorView{in, dtype, {n}, {}}, TensorView{out, dtype, {n}, {}}, {}, state});
  e.enqueue(std::move(v));
  return Handle(state);
}

Handle join(Engine& e, int rank) {
  auto state = std::make_shared<HandleState>(1);
  Request q;
  q.rank = rank;
  q.type = OpType::kJoin;
  q.name = "join";
  std::vector<TensorEntry> v;
  v.push_back(TensorEntry{q, {}, {}, {}, state});
  e.enqueue(std::move(v));
  return Handle(state);
}

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

}  // namespace

TEST_CASE("allreduce sum and average over 3 ranks, many tensors fused, in place") {
  Job job(3);
  job.on_all([](int rank, Engine& e) {
    std::vector<std::vector<float>> data(50, std::vector<float>(33, static_cast<float>(rank + 1)));
    std::vector<Handle> hs;
    for (int i = 0; i < 50; ++i) {
      hs.push_back(allreduce(e, rank, "t" + std::to_string(i), data[i].data(), data[i].data(), 33, DataType::kFloat32,
                             i % 2 ? ReduceOp::kAverage : ReduceOp::kSum));
    }
    for (auto& h : hs) h.wait();
    for (int i = 0; i < 50; ++i) CHECK(data[i][32] == (i % 2 ? 2.0f : 6.0f));
  });
}

TEST_CASE("a dtype mismatch fails on every rank with the ranks named, and the job goes on") {
  Job job(2);
  job.on_all([](int rank, Engine& e) {
    std::int32_t buf[4] = {1, 2, 3, 4};
    auto h =
        allreduce(e, rank, "grad/w", buf, buf, rank == 1 ? 4 : 2, rank == 1 ? DataType::kInt32 : DataType::kFloat32);
    std::string msg;
    try {
      h.wait();
    } catch (const Error& err) {
      msg = err.what();
    }
    CHECK(msg == "allreduce 'grad/w': rank 1 (h2) sent int32, rank 0 (h1) sent float32; cast before the call");
    float f[3] = {1, 1, 1};
    allreduce(e, rank, "next", f, f, 3).wait();
    CHECK(f[0] == 2.0f);
  });
}

TEST_CASE("on_done: the callback runs once the op is done with no thread waiting, and at once when added after") {
  Job job(2);
  job.on_all([](int rank, Engine& e) {
    float buf[3] = {1, 2, 3};
    auto h = allreduce(e, rank, "grad/done", buf, buf, 3);
    std::promise<float> seen;  // what the callback read: the result is complete when it runs
    int calls = 0;
    h.on_done([&] {
      ++calls;
      seen.set_value(buf[2]);
    });
    auto result = seen.get_future();
    REQUIRE(result.wait_for(10s) == std::future_status::ready);  // nobody called wait(): the engine's thread ran it
    CHECK(result.get() == 6.0f);
    CHECK(h.poll());
    bool late = false;
    h.on_done([&] { late = true; });  // done already: runs here, now
    CHECK(late);
    CHECK(calls == 1);
  });
}

TEST_CASE("on_done: a failed op's callback runs too, and wait() then rethrows its error") {
  Job job(2);
  job.on_all([](int rank, Engine& e) {
    std::int32_t buf[4] = {1, 2, 3, 4};
    auto h = allreduce(e, rank, "grad/bad", buf, buf, 4, rank == 1 ? DataType::kInt32 : DataType::kFloat32);
    std::promise<void> ran;
    h.on_done([&] { ran.set_value(); });
    REQUIRE(ran.get_future().wait_for(10s) == std::future_status::ready);
    CHECK_THROWS_AS(h.wait(), Error);
  });
}

TEST_CASE("repeated steps go through the response cache: no more negotiation after the first step") {
  Job job(3);
  int after_first = 0;
  for (int step = 0; step < 6; ++step) {
    job.on_all([&](int rank, Engine& e) {
      std::vector<std::vector<float>> data(40, std::vector<float>(8, 1.0f));
      std::vector<Handle> hs;
      for (int i = 0; i < 40; ++i)
        hs.push_back(allreduce(e, rank, "w" + std::to_string(i), data[i].data(), data[i].data(), 8));
      for (auto& h : hs) h.wait();
      for (auto& d : data) CHECK(d[7] == 3.0f);
    });
    if (step == 0) after_first = job.hub->gathers.load();
  }
  CHECK(job.hub->gathers.load() == after_first);
}

TEST_CASE("join: a joined rank contributes zeros and join returns the last rank to join") {
  Job job(3);
  job.on_all([](int rank, Engine& e) {
    int steps = rank == 0 ? 0 : rank == 1 ? 2 : 4;
    for (int s = 0; s < steps; ++s) {
      float v[2] = {1, 1};
      allreduce(e, rank, "step" + std::to_string(s), v, v, 2).wait();
      CHECK(v[0] == (s < 2 ? 2.0f : 1.0f));
    }
    auto h = join(e, rank);
    h.wait();
    CHECK(h.last_joined_rank() == 2);
    // After everyone joined, the job goes on with every rank contributing again.
    float v[2] = {1, 1};
    allreduce(e, rank, "after-join", v, v, 2).wait();
    CHECK(v[0] == 3.0f);
  });
}

TEST_CASE("a broken communicator fails pending and later ops with its error; shutdown returns") {
  Job job(3);
  std::vector<Handle> hs;
  float v[2][2] = {{1, 1}, {1, 1}};
  for (int r = 0; r < 2; ++r) hs.push_back(allreduce(*job.engines[r], r, "x", v[r], v[r], 2));
  std::this_thread::sleep_for(50ms);
  job.hub->break_with("recv: connection reset by peer, rank 2 (h1)");
  for (auto& h : hs) {
    for (int i = 0; i < 500 && !h.poll(); ++i) std::this_thread::sleep_for(10ms);
    CHECK(h.poll());
  }
  for (auto& h : hs) CHECK_THROWS_WITH_AS(h.wait(), "recv: connection reset by peer, rank 2 (h1)", Error);
  float w[1] = {1};
  auto later = allreduce(*job.engines[0], 0, "later", w, w, 1);
  CHECK_THROWS_AS(later.wait(), Error);
}

TEST_CASE("idle ranks block: no CPU burnt while nothing happens, and a lone request is answered at once") {
  Job job(3);
  std::this_thread::sleep_for(100ms);
  double before = cpu_seconds();
  std::this_thread::sleep_for(500ms);
  CHECK(cpu_seconds() - before < 0.05);
  job.on_all([](int rank, Engine& e) {
    float v[1] = {1};
    auto start = std::chrono::steady_clock::now();
    allreduce(e, rank, "lone", v, v, 1).wait();
    CHECK(std::chrono::steady_clock::now() - start < 100ms);
  });
  // One rank waiting for slow peers sleeps in the communicator, too.
  float v[1] = {1};
  auto h = allreduce(*job.engines[0], 0, "waiting", v, v, 1);
  before = cpu_seconds();
  std::this_thread::sleep_for(500ms);
  CHECK(cpu_seconds() - before < 0.05);
  job.on_all([&](int rank, Engine& e) {
    if (rank == 0) return;
    float w[1] = {1};
    allreduce(e, rank, "waiting", w, w, 1).wait();
  });
  h.wait();
  CHECK(v[0] == 3.0f);
}

TEST_CASE("stall shutdown: a tensor some ranks never submit fails everywhere and the engines stop") {
  Config config;
  config.stall_check_time = 1s;
  config.stall_shutdown_time = 2s;
  Job job(3, config);
  float v[2][1] = {{1}, {1}};
  std::vector<Handle> hs;
  for (int r = 0; r < 2; ++r) hs.push_back(allreduce(*job.engines[r], r, "stuck", v[r], v[r], 1));
  for (auto& h : hs) {
    std::string msg;
    try {
      h.wait_for(10s);
    } catch (const Error& e) {
      msg = e.what();
    }
    CHECK(msg.find("HOROVOD_STALL_SHUTDOWN_TIME_SECONDS") != std::string::npos);
    CHECK(msg.find("'stuck' waited") != std::string::npos);
    CHECK(msg.find("rank 2 (h1)") != std::string::npos);
  }
  float w[1] = {1};
  auto later = allreduce(*job.engines[2], 2, "later", w, w, 1);
  CHECK_THROWS_WITH_AS(later.wait(), doctest::Contains("hvd is shut down: stalled"), Error);
}

namespace {
// Enqueues tensors i = 0..k-1 of sizes[i] elements together, so that they are fused into one allreduce.
std::vector<Handle> allreduce_fused(Engine& e, int rank, const std::string& name, std::vector<void*> ins,
                                    std::vector<void*> outs, const std::vector<std::int64_t>& sizes, DataType dtype,
                                    ReduceOp op, double prescale, double postscale) {
  std::vector<TensorEntry> v;
  std::vector<Handle> hs;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    auto state = std::make_shared<HandleState>(1);
    Request q;
    q.rank = rank;
    q.name = name + "/" + std::to_string(i);
    q.dtype = dtype;
    q.shape = {sizes[i]};
    q.reduce_op = op;
    q.prescale = prescale;
    q.postscale = postscale;
    v.push_back(
        TensorEntry{q, TensorView{ins[i], dtype, {sizes[i]}, {}}, TensorView{outs[i], dtype, {sizes[i]}, {}}, {}, state});
    hs.emplace_back(state);
  }
  e.enqueue(std::move(v));
  return hs;
}
}  // namespace

TEST_CASE("fused allreduce out of place: prescale, Average, postscale per tensor; inputs untouched") {
  const std::vector<std::int64_t> sizes = {5, 0, 1, 33, 7, 1000, 0, 3};
  Job job(3);
  job.on_all([&](int rank, Engine& e) {
    // Inputs rank+1, prescale 2, Average over 3 ranks, postscale 0.5: (2+4+6)/3*0.5 = 2 in every dtype.
    for (DataType dt : {DataType::kFloat32, DataType::kInt32, DataType::kFloat16}) {
      std::vector<std::vector<float>> fin, fout;
      std::vector<std::vector<std::int32_t>> iin, iout;
      std::vector<std::vector<std::uint16_t>> hin, hout;
      std::vector<void*> ins, outs;
      for (auto n : sizes) {
        auto m = static_cast<std::size_t>(n);
        if (dt == DataType::kFloat32) {
          ins.push_back(fin.emplace_back(m, static_cast<float>(rank + 1)).data());
          outs.push_back(fout.emplace_back(m, -1.0f).data());
        } else if (dt == DataType::kInt32) {
          ins.push_back(iin.emplace_back(m, rank + 1).data());
          outs.push_back(iout.emplace_back(m, -1).data());
        } else {
          ins.push_back(hin.emplace_back(m, float_to_half(static_cast<float>(rank + 1))).data());
          outs.push_back(hout.emplace_back(m, 0).data());
        }
      }
      auto hs = allreduce_fused(e, rank, std::string("scaled/") + name_of(dt), ins, outs, sizes, dt,
                                ReduceOp::kAverage, 2.0, 0.5);
      for (auto& h : hs) h.wait();
      for (std::size_t t = 0; t < sizes.size(); ++t) {
        for (std::size_t i = 0; i < static_cast<std::size_t>(sizes[t]); ++i) {
          CAPTURE(t);
          CAPTURE(i);
          if (dt == DataType::kFloat32) {
            CHECK(fout[t][i] == 2.0f);
            CHECK(fin[t][i] == static_cast<float>(rank + 1));
          } else if (dt == DataType::kInt32) {
            CHECK(iout[t][i] == 2);
            CHECK(iin[t][i] == rank + 1);
          } else {
            CHECK(half_to_float(hout[t][i]) == 2.0f);
            CHECK(half_to_float(hin[t][i]) == static_cast<float>(rank + 1));
          }
        }
      }
    }
  });
}

TEST_CASE("fused allreduce with a joined rank: it contributes zeros to every tensor of the step") {
  const std::vector<std::int64_t> sizes = {3, 0, 40, 1, 17};
  Job job(3);
  job.on_all([&](int rank, Engine& e) {
    if (rank != 0) {
      std::vector<std::vector<float>> data;
      std::vector<void*> ptrs;
      for (auto n : sizes) ptrs.push_back(data.emplace_back(static_cast<std::size_t>(n), rank + 1.0f).data());
      auto hs = allreduce_fused(e, rank, "joined", ptrs, ptrs, sizes, DataType::kFloat32, ReduceOp::kSum, 1.0, 1.0);
      for (auto& h : hs) h.wait();
      for (std::size_t t = 0; t < sizes.size(); ++t)
        for (float x : data[t]) CHECK(x == 5.0f);
    }
    join(e, rank).wait();
  });
}
