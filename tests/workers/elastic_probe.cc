// A worker for the elastic driver's tests that speaks the store protocol directly (no runtime): it rendezvous,
// prints its place, then "trains" STEPS steps of STEP_MS each, watching the elastic events between steps; on an
// event it rendezvous again and starts its steps over. Exits 0 after STEPS steps in one generation, 3 when hvdrun
// has no place for it.
//   elastic_probe STEPS STEP_MS
// Lines: "probe <worker> generation=G rank=R size=S" at each placement; "probe <worker> done generation=G".
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "common/blocking_channel.h"
#include "common/crypto.h"

using namespace std::chrono_literals;

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  const int steps = std::atoi(argv[1]);
  const auto step = std::chrono::milliseconds(std::atoi(argv[2]));
  const std::string worker = std::getenv("HVD_WORKER_ID") ? std::getenv("HVD_WORKER_ID") : "";
  const std::string addr = std::getenv("HVD_STORE_ADDR") ? std::getenv("HVD_STORE_ADDR") : "";
  const std::string secret = hvd::from_hex(std::getenv("HVD_SECRET") ? std::getenv("HVD_SECRET") : "");
  const auto colon = addr.rfind(':');
  hvd::BlockingChannel store(hvd::connect_tcp(addr.substr(0, colon), std::stoi(addr.substr(colon + 1)), 10s), secret,
                             addr, 10s);
  store.send({{"type", "hello"}, {"role", "store"}, {"rank", -1}});
  int generation = -1;
  for (;;) {
    store.send({{"op", "rendezvous"}, {"worker", worker}, {"after", generation}});
    const auto placed = store.recv(700s);
    if (!placed.value("ok", false)) {
      std::printf("probe %s no place: %s\n", worker.c_str(), placed.value("error", "").c_str());
      return 3;
    }
    generation = placed.at("generation").get<int>();
    int next_event = placed.at("events").get<int>() + 1;
    std::printf("probe %s generation=%d rank=%d size=%d\n", worker.c_str(), generation, placed.at("rank").get<int>(),
                placed.at("size").get<int>());
    std::fflush(stdout);
    bool interrupted = false;
    for (int i = 0; i < steps && !interrupted; ++i) {
      store.send({{"op", "get"}, {"key", "elastic/event/" + std::to_string(next_event)}, {"timeout_ms", step.count()}});
      interrupted = store.recv(60s).value("ok", false);
    }
    if (!interrupted) break;
  }
  std::printf("probe %s done generation=%d\n", worker.c_str(), generation);
  return 0;
}
