#include "runtime/engine/controller.h"

#include <spdlog/spdlog.h>

#include "runtime/engine/validation.h"

namespace hvd::detail {

Controller::Controller(int size, RankNames names, StallInspector& stall)
    : size_(size), names_(std::move(names)), stall_(stall), joined_(static_cast<std::size_t>(size), false) {}

void Controller::add(const Request& request, Clock::time_point now, std::vector<std::string>& errors) {
  auto [it, fresh] = table_.try_emplace(request.name);
  Pending& p = it->second;
  if (fresh) {
    p.by_rank.resize(static_cast<std::size_t>(size_));
    p.seq = next_seq_++;
    p.first_seen = now;
    order_.emplace(p.seq, request.name);
  }
  if (p.by_rank[request.rank]) {
    // The tensor queue refuses a name in flight, so this is a rank reusing a name in one cycle list: report it.
    errors.push_back(std::string(name_of(request.type)) + " '" + request.name + "': " +
                     describe_ranks({request.rank}, names_) + " sent it twice in one step; names must be unique");
    return;
  }
  p.by_rank[request.rank] = request;
  ++p.count;
}

bool Controller::ready(const Pending& p) const {
  int have = 0;
  for (int r = 0; r < size_; ++r) have += (p.by_rank[r] || joined_[r]) ? 1 : 0;
  return have == size_ && p.count > 0;
}

ResponseList Controller::coordinate(const std::vector<RequestList>& lists, Clock::time_point now) {
  ResponseList out;
  std::vector<std::string> errors;
  take(lists, now, out, errors);
  answer_ready(out);
  complete_join(out);
  if (stall_.due(now)) fail_stalled(now, out);
  for (const auto& e : errors) spdlog::error("{}", e);
  return out;
}

// Steps 1-2: each rank's requests into the table, its joins and its shutdown into `out`.
void Controller::take(const std::vector<RequestList>& lists, Clock::time_point now, ResponseList& out,
                      std::vector<std::string>& errors) {
  for (int r = 0; r < static_cast<int>(lists.size()); ++r) {
    if (lists[r].shutdown && !out.stopping()) {
      out.shutdown = {.code = StopCode::kShutdown, .rank = names_.job_rank(r), .host = names_.host(r)};
      out.shutdown_blame = {r};
    }
    for (const auto& q : lists[r].requests) {
      if (q.type == OpType::kJoin) {
        if (!joined_[q.rank]) ++joined_count_;
        joined_[q.rank] = true;
        last_joined_ = q.rank;
        continue;
      }
      add(q, now, errors);
    }
  }
}

// Steps 3-4: ready tensors in arrival order, validated; a group goes only when all of its tensors are ready.
void Controller::answer_ready(ResponseList& out) {
  std::vector<std::string> ready_names;
  std::unordered_map<std::string, int> group_ready;
  for (const auto& [seq, name] : order_) {
    const Pending& p = table_.at(name);
    if (!ready(p)) continue;
    ready_names.push_back(name);
    for (const auto& q : p.by_rank) {
      if (q && !q->group.empty()) {
        ++group_ready[q->group];
        break;
      }
    }
  }
  for (const auto& name : ready_names) {
    Pending& p = table_.at(name);
    const Request* any = nullptr;
    std::vector<const Request*> by_rank(static_cast<std::size_t>(size_), nullptr);
    for (int r = 0; r < size_; ++r) {
      if (p.by_rank[r]) {
        by_rank[r] = &*p.by_rank[r];
        if (!any) any = by_rank[r];
      }
    }
    if (!any->group.empty() && group_ready[any->group] < any->group_size) continue;
    out.responses.push_back(validate(by_rank, names_));
    order_.erase(p.seq);
    table_.erase(name);
  }
}

// Step 4, join: it completes when every rank has joined, and the next join starts afresh.
void Controller::complete_join(ResponseList& out) {
  if (joined_count_ != size_) return;
  Response join;
  join.type = OpType::kJoin;
  join.names = {"join"};
  join.last_joined_rank = last_joined_;
  out.responses.push_back(std::move(join));
  joined_.assign(static_cast<std::size_t>(size_), false);
  joined_count_ = 0;
}

// Step 5: the stall inspector's verdict on what is still pending; a tensor stalled past the shutdown time fails,
// and the job shuts down naming the ranks it waited for.
void Controller::fail_stalled(Clock::time_point now, ResponseList& out) {
  std::vector<PendingTensor> pending;
  for (const auto& [seq, name] : order_) {
    const Pending& p = table_.at(name);
    PendingTensor t{name, OpType::kAllreduce, {}, p.first_seen};
    for (int r = 0; r < size_; ++r) {
      if (p.by_rank[r])
        t.type = p.by_rank[r]->type;
      else if (!joined_[r])
        t.missing.push_back(r);
    }
    pending.push_back(std::move(t));
  }
  auto verdict = stall_.inspect(pending, now);
  for (const auto& name : verdict.fail) {
    Pending& p = table_.at(name);
    Response err;
    for (const auto& q : p.by_rank) {
      if (q) err.type = q->type;
    }
    err.names = {name};
    err.error = describe(verdict.stop);
    err.error_kind = ErrorKind::kStall;
    for (int r : verdict.missing) err.blame.push_back(names_.job_rank(r));
    out.responses.push_back(std::move(err));
    order_.erase(p.seq);
    table_.erase(name);
  }
  if (!verdict.fail.empty() && !out.stopping()) {
    out.shutdown = verdict.stop;
    out.shutdown_blame.assign(verdict.missing.begin(), verdict.missing.end());
  }
}

std::optional<PendingOp> Controller::oldest_pending(Clock::time_point older_than) const {
  for (const auto& [seq, name] : order_) {
    const Pending& p = table_.at(name);
    if (p.first_seen > older_than) return std::nullopt;  // arrival order: the rest are younger
    PendingOp op;
    for (int r = 0; r < size_; ++r) {
      if (p.by_rank[r])
        op.op = name_of(p.by_rank[r]->type);
      else if (!joined_[r])
        op.missing.push_back(r);
    }
    if (op.missing.empty()) continue;
    op.tensor = name;
    op.since_ms = wall_clock_ms() - std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - p.first_seen).count();
    op.others = static_cast<int>(table_.size()) - 1;
    return op;
  }
  return std::nullopt;
}

}  // namespace hvd::detail
