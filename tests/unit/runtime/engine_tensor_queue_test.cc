// TensorQueue::wait_for_quiet: how the engine's thread waits for a burst of requests to end (engine.cc, run()).
#include <doctest/doctest.h>

#include <chrono>
#include <future>
#include <string>
#include <thread>

#include "runtime/engine/tensor_queue.h"

using namespace hvd;
using namespace hvd::detail;
using namespace std::chrono_literals;

namespace {

using Clock = TensorQueue::Clock;
using Pause = TensorQueue::Pause;

void enqueue_one(TensorQueue& queue, int i) {
  Request q;
  q.name = "burst." + std::to_string(i);
  q.shape = {1};
  std::vector<TensorEntry> entries;
  entries.push_back(TensorEntry{q, {}, {}, {}, std::make_shared<HandleState>(1)});
  queue.enqueue(std::move(entries));
}

// How a wait for a pause of 100 ms ended, against a producer that enqueues every 10 ms for 400 ms, pauses 250 ms,
// then enqueues once more (42 requests in all). The pauses are long against a sleep's overshoot on a busy machine.
struct WaitEnd {
  std::size_t new_requests;
  std::chrono::steady_clock::duration took;
};

WaitEnd wait_through_burst(Pause pause) {
  TensorQueue queue;
  enqueue_one(queue, 0);
  const auto start = Clock::now();
  auto waiter = std::async(std::launch::async, [&] {
    const bool quiet = queue.wait_for_quiet(100ms, start + 60s, pause);
    CHECK(quiet);
    return WaitEnd{queue.new_count(), Clock::now() - start};
  });
  int i = 1;
  for (; i <= 40; ++i) {
    std::this_thread::sleep_for(10ms);
    enqueue_one(queue, i);
  }
  std::this_thread::sleep_for(250ms);
  enqueue_one(queue, i);
  REQUIRE(waiter.wait_for(60s) == std::future_status::ready);
  return waiter.get();
}

}  // namespace

TEST_CASE("wait_for_quiet: a fixed pause ends the wait at the first gap that long") {
  const WaitEnd end = wait_through_burst(Pause::kFixed);
  // It waited while the burst went on, then ended inside the 250 ms pause (or sooner, on a machine too busy to keep
  // the producer's pace): the last request is not yet there.
  CHECK(end.new_requests > 1);
  CHECK(end.new_requests < 42);
}

TEST_CASE("wait_for_quiet: a widening pause outlasts a gap once the burst has gone on past it") {
  const WaitEnd end = wait_through_burst(Pause::kWidening);
  // Woken twice while the 400 ms burst went on, the waiter now wants a pause of 400 ms or more, so the 250 ms gap
  // does not end the burst and the last request joins it; the pause after it still ends the wait, long before the
  // 60 s deadline.
  CHECK(end.new_requests == 42);
  CHECK(end.took < 10s);
}

TEST_CASE("wait_for_quiet: requests taken by another thread end the wait, saying so") {
  TensorQueue queue;
  enqueue_one(queue, 0);
  auto waiter = std::async(std::launch::async, [&] { return queue.wait_for_quiet(100ms, Clock::now() + 60s); });
  std::this_thread::sleep_for(20ms);
  std::vector<const Request*> taken;
  queue.take_new(taken);  // as Engine::drive's cycle takes a burst its thread waits on
  CHECK(taken.size() == 1);
  enqueue_one(queue, 1);  // the next burst begins before the waiter wakes
  REQUIRE(waiter.wait_for(10s) == std::future_status::ready);
  CHECK_FALSE(waiter.get());
  CHECK(queue.new_count() == 1);
}
