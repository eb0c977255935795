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

// A producer that enqueues every 10 ms for 300 ms, pauses 120 ms, then enqueues once more. The waiter waits for a
// pause of 50 ms; returns how many requests were new when the wait ended.
std::size_t new_at_end_of_wait(Pause pause) {
  TensorQueue queue;
  enqueue_one(queue, 0);
  auto waiter = std::async(std::launch::async, [&] {
    const bool quiet = queue.wait_for_quiet(50ms, Clock::now() + 20s, pause);
    CHECK(quiet);
    return queue.new_count();
  });
  int i = 1;
  for (; i <= 30; ++i) {
    std::this_thread::sleep_for(10ms);
    enqueue_one(queue, i);
  }
  std::this_thread::sleep_for(120ms);
  enqueue_one(queue, i);
  REQUIRE(waiter.wait_for(20s) == std::future_status::ready);
  return waiter.get();
}

}  // namespace

TEST_CASE("wait_for_quiet: a fixed pause ends the wait at the first gap that long") {
  // The wait ends inside the 120 ms pause (or sooner, on a machine too busy to keep the producer's pace): the last
  // request is not yet there.
  CHECK(new_at_end_of_wait(Pause::kFixed) < 32);
}

TEST_CASE("wait_for_quiet: a widening pause outlasts a gap once the burst has gone on past it") {
  // Woken at least twice while the 300 ms burst went on, the waiter now wants a pause of 200 ms or more, so the
  // 120 ms gap does not end the burst and the last request joins it.
  CHECK(new_at_end_of_wait(Pause::kWidening) == 32);
}

TEST_CASE("wait_for_quiet: requests taken by another thread end the wait, saying so") {
  TensorQueue queue;
  enqueue_one(queue, 0);
  auto waiter = std::async(std::launch::async, [&] { return queue.wait_for_quiet(100ms, Clock::now() + 20s); });
  std::this_thread::sleep_for(20ms);
  std::vector<const Request*> taken;
  queue.take_new(taken);  // as Engine::drive's cycle takes a burst its thread waits on
  CHECK(taken.size() == 1);
  enqueue_one(queue, 1);  // the next burst begins before the waiter wakes
  REQUIRE(waiter.wait_for(20s) == std::future_status::ready);
  CHECK_FALSE(waiter.get());
  CHECK(queue.new_count() == 1);
}
