// The public process-set API (hvd/process_set.h) over the runtime's table (process_sets.h).
#include "hvd/hvd.h"
#include "runtime/api/runtime.h"

namespace hvd {

struct ProcessSetAccess {
  static ProcessSet make(const detail::ProcessSetInfo& info) {
    ProcessSet s;
    s.id_ = info.id;
    s.ranks_ = info.ranks;
    s.my_rank_ = info.my_rank;
    return s;
  }
};

namespace {
detail::ProcessSetTable& table() { return detail::Runtime::get().process_sets(); }
}  // namespace

void init(const std::vector<std::vector<int>>& process_sets) { detail::Runtime::init(process_sets); }

ProcessSet global_process_set() { return ProcessSetAccess::make(table().info(0)); }

ProcessSet process_set(std::int32_t id) { return ProcessSetAccess::make(table().info(id)); }

std::vector<ProcessSet> process_sets() {
  std::vector<ProcessSet> out;
  for (const auto& info : table().all()) out.push_back(ProcessSetAccess::make(info));
  return out;
}

ProcessSet add_process_set(const std::vector<int>& ranks) {
  auto& rt = detail::Runtime::get();
  if (!rt.config().dynamic_process_sets) {
    throw Error(ErrorKind::kUsage, "add_process_set " + detail::describe_rank_list(ranks) +
                                       ": dynamic process sets are off; start every rank with "
                                       "HOROVOD_DYNAMIC_PROCESS_SETS=1, or pass the sets to init(process_sets)");
  }
  return ProcessSetAccess::make(rt.process_sets().add(ranks, "add_process_set"));
}

void remove_process_set(const ProcessSet& set) {
  auto& rt = detail::Runtime::get();
  if (!rt.config().dynamic_process_sets) {
    throw Error(ErrorKind::kUsage, "remove_process_set " + std::to_string(set.id()) +
                                       ": dynamic process sets are off; start every rank with "
                                       "HOROVOD_DYNAMIC_PROCESS_SETS=1");
  }
  rt.process_sets().remove(set.id());
}

}  // namespace hvd
