// The free functions of include/hvd/elastic.h: enabled, reset, hosts_updated and the run() loop.
#include <spdlog/spdlog.h>

#include "hvd/elastic.h"
#include "hvd/error.h"
#include "hvd/hvd.h"
#include "runtime/elastic/elastic_config.h"
#include "runtime/api/runtime.h"

namespace hvd::elastic {
namespace {

using detail::Runtime;

// The errors that mean "the job is being re-formed": run() resets on them, anything else propagates.
bool job_reforms(const Error& e) { return e.kind() == ErrorKind::kPeerLost || e.kind() == ErrorKind::kMembership; }

}  // namespace

bool enabled() { return detail::elastic_requested(detail::process_env()); }

void reset() { Runtime::reset(); }

std::int64_t generation() {
  const auto& joined = Runtime::get().elastic();
  return joined ? joined->generation : -1;
}

bool hosts_updated() {
  Runtime& rt = Runtime::get();
  // Static jobs never re-form; every rank knows that alone, so no collective is needed.
  if (!rt.elastic()) return false;
  std::uint8_t heard = rt.topology().rank == 0 && rt.hosts_updated_heard() ? 1 : 0;
  hvd::broadcast(TensorView{&heard, DataType::kUInt8, {}, {}}, {.root = 0, .name = "hvd.elastic.hosts_updated"});
  return heard != 0;
}

void run(State& state, const std::function<void()>& train) {
  const bool elastic = enabled();
  for (;;) {
    try {
      state.sync();
      train();
      return;
    } catch (const HostsUpdatedInterrupt& e) {
      spdlog::info("elastic: {}", e.what());
    } catch (const Error& e) {
      if (!elastic || !job_reforms(e)) throw;
      spdlog::warn("elastic: the job re-forms after: {}", e.what());
      state.restore();
    }
    reset();
    state.run_reset_callbacks();
  }
}

}  // namespace hvd::elastic
