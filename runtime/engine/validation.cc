#include "runtime/engine/validation.h"

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>
#include <sstream>

#include "runtime/engine/gpu/gpu_plan.h"
#include "runtime/reduce/reduce.h"

namespace hvd::detail {
namespace {

std::string fmt_double(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

// Groups the submitting ranks by `field`; returns "" when they agree, else the disagreement phrase with the
// minority first: "rank 1 (h2) sent float16, rank 0 (h1) sent float32". `odd` gets that minority, by their ranks
// in the job: the ranks at fault (the root-cause report names them; the others fail because of them).
std::string disagreement(const std::vector<const Request*>& by_rank, const RankNames& names,
                         const std::function<std::string(const Request&)>& field, const std::string& verb,
                         std::vector<std::int64_t>& odd) {
  std::map<std::string, std::vector<int>> groups;
  for (std::size_t r = 0; r < by_rank.size(); ++r) {
    if (by_rank[r]) groups[field(*by_rank[r])].push_back(static_cast<int>(r));
  }
  if (groups.size() <= 1) return "";
  std::vector<std::pair<std::string, std::vector<int>>> ordered(groups.begin(), groups.end());
  // The odd ones out first: groups without the first submitter (the reference), smallest first.
  int reference = -1;
  for (std::size_t r = 0; r < by_rank.size() && reference < 0; ++r) {
    if (by_rank[r]) reference = static_cast<int>(r);
  }
  auto has_ref = [&](const std::vector<int>& ranks) { return ranks.front() == reference; };
  std::stable_sort(ordered.begin(), ordered.end(), [&](const auto& a, const auto& b) {
    if (has_ref(a.second) != has_ref(b.second)) return !has_ref(a.second);
    if (a.second.size() != b.second.size()) return a.second.size() < b.second.size();
    return a.second.front() < b.second.front();
  });
  odd.clear();
  for (int r : ordered.front().second) odd.push_back(names.job_rank(r));
  std::string out;
  for (const auto& [value, ranks] : ordered) {
    if (!out.empty()) out += ", ";
    out += describe_ranks(ranks, names) + " " + verb + " " + value;
  }
  return out;
}

// One thing every rank's request must agree on: the ops it applies to, the field compared, and the phrase parts
// of the message ("rank 1 (h2) <verb> <field>; <fix>").
struct Agreement {
  bool (*applies)(OpType type);
  std::string (*field)(const Request& q);
  const char* verb;
  const char* fix;
};

bool any_op(OpType) { return true; }
// Allgather and alltoall move rows: only the first dimension may differ between ranks.
bool moves_rows(OpType type) { return type == OpType::kAllgather || type == OpType::kAlltoall; }
bool same_shape_op(OpType type) { return !moves_rows(type) && type != OpType::kBarrier && type != OpType::kJoin; }
bool is_broadcast(OpType type) { return type == OpType::kBroadcast; }

// In the order they are checked: the first disagreement is the one reported.
const Agreement kAgreements[] = {
    {any_op, [](const Request& q) { return std::string(name_of(q.type)); }, "called",
     "every rank must call the same op for one name"},
    {any_op, [](const Request& q) { return std::string(name_of(q.dtype)); }, "sent", "cast before the call"},
    {any_op,
     [](const Request& q) { return std::string(q.device == Device::Kind::kGPU ? "a GPU tensor" : "a CPU tensor"); },
     "sent", "put the tensor on the same kind of device on every rank"},
    {moves_rows,
     [](const Request& q) {
       return "shape " + shape_string(Shape(q.shape.begin() + (q.shape.empty() ? 0 : 1), q.shape.end())) +
              " after the first dimension";
     },
     "sent", "only the first dimension may differ between ranks"},
    {same_shape_op, [](const Request& q) { return "shape " + shape_string(q.shape); }, "sent",
     "every rank must pass the same shape"},
    {is_reduction, [](const Request& q) { return std::string("op ") + name_of(q.reduce_op); }, "asked for",
     "pass the same reduce op on every rank"},
    {is_reduction, [](const Request& q) { return "prescale_factor " + fmt_double(q.prescale); }, "sent",
     "pass the same scale factors on every rank"},
    {is_reduction, [](const Request& q) { return "postscale_factor " + fmt_double(q.postscale); }, "sent",
     "pass the same scale factors on every rank"},
    {is_reduction, [](const Request& q) { return "group '" + q.group + "' of " + std::to_string(q.group_size); },
     "sent", "grouped calls must match on every rank"},
    // Checked before GPU support (every_rank_problem), which concerns reductions only: the order is moot.
    {is_broadcast, [](const Request& q) { return "root " + std::to_string(q.root); }, "named",
     "pass the same root on every rank"},
};

const Request* first_request(const std::vector<const Request*>& by_rank) {
  for (const Request* q : by_rank) {
    if (q) return q;
  }
  return nullptr;
}

// The response every rank executes when the requests agree: the reference request's parameters.
Response response_for(const Request& ref) {
  Response resp;
  resp.type = ref.type;
  resp.names = {ref.name};
  resp.dtype = ref.dtype;
  resp.reduce_op = ref.reduce_op;
  resp.prescale = ref.prescale;
  resp.postscale = ref.postscale;
  resp.root = ref.root;
  resp.shapes = {ref.shape};
  resp.device = ref.device;
  return resp;
}

// What needs every rank, once they agree: "" when the op can run, else why not (a usage error).
std::string every_rank_problem(const Response& resp, const std::vector<const Request*>& by_rank,
                               const RankNames& names) {
  if (resp.device == Device::Kind::kGPU) {
    if (auto why = gpu_support_error(resp); !why.empty()) return why;
  }
  if (resp.type == OpType::kBroadcast && !by_rank[resp.root]) {
    return "root rank " + std::to_string(resp.root) + " has joined; it has no data to send";
  }
  std::vector<int> joined;
  for (std::size_t r = 0; r < by_rank.size(); ++r) {
    if (!by_rank[r]) joined.push_back(static_cast<int>(r));
  }
  // As Horovod: only the reductions go on without a joined rank (it adds zeros); an op that moves each rank's own
  // data (allgather, broadcast, alltoall) fails on the ranks that called it, naming the joined ones.
  if (!joined.empty() && (moves_rows(resp.type) || resp.type == OpType::kBroadcast)) {
    return describe_ranks(joined, names) + " joined; " + name_of(resp.type) +
           " needs every rank (only allreduce and reducescatter go on after join); call it before join()";
  }
  return "";
}

// Allgather: each rank's first dimension; alltoall: the size x size splits.
void fill_layout(Response& resp, const std::vector<const Request*>& by_rank) {
  const int size = static_cast<int>(by_rank.size());
  if (resp.type == OpType::kAllgather) {
    resp.rank_rows.assign(size, 0);
    for (int r = 0; r < size; ++r) resp.rank_rows[r] = by_rank[r] ? by_rank[r]->shape[0] : 0;
  }
  if (resp.type == OpType::kAlltoall) {
    resp.splits.assign(static_cast<std::size_t>(size) * size, 0);
    // Each rank's splits passed check_splits on that rank (one per rank, adding up to its rows); none means
    // equal parts.
    for (int r = 0; r < size; ++r) {
      const Request& q = *by_rank[r];
      const auto out = resp.splits.begin() + static_cast<std::ptrdiff_t>(r) * size;
      if (q.splits.empty()) {
        std::fill(out, out + size, q.shape[0] / size);
      } else {
        std::copy(q.splits.begin(), q.splits.end(), out);
      }
    }
  }
}

}  // namespace

Response validate(const std::vector<const Request*>& by_rank, const RankNames& names) {
  const Request* ref = first_request(by_rank);
  Response resp = response_for(*ref);
  const std::string what = std::string(name_of(ref->type)) + " '" + ref->name + "': ";
  for (const Agreement& agreement : kAgreements) {
    if (!agreement.applies(ref->type)) continue;
    auto d = disagreement(by_rank, names, agreement.field, agreement.verb, resp.blame);
    if (d.empty()) continue;
    resp.error = what + d + "; " + agreement.fix;
    resp.error_kind = ErrorKind::kMismatch;
    return resp;
  }
  if (auto why = every_rank_problem(resp, by_rank, names); !why.empty()) {
    resp.error = what + why;
    resp.error_kind = ErrorKind::kUsage;
    return resp;
  }
  fill_layout(resp, by_rank);
  return resp;
}

}  // namespace hvd::detail
