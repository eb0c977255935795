// hvd::start_timeline / stop_timeline: the engine's timeline, reached through the runtime.
#include "hvd/error.h"
#include "hvd/timeline.h"
#include "runtime/api/runtime.h"

namespace hvd {

void start_timeline(const std::string& file, bool mark_cycles) {
  if (file.empty())
    throw Error(ErrorKind::kUsage, "start_timeline: the file name is empty; pass the path of the trace to write");
  detail::Runtime::get().engine().timeline().start(file, mark_cycles);
}

void stop_timeline() { detail::Runtime::get().engine().timeline().stop(); }

}  // namespace hvd
