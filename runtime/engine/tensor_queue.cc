#include "runtime/engine/tensor_queue.h"

#include <algorithm>
#include <utility>

#include "hvd/error.h"

namespace hvd::detail {

void TensorQueue::enqueue(std::vector<TensorEntry> entries, Pickup pickup) {
  std::exception_ptr failure;
  bool notify = false;
  {
    std::lock_guard lock(mutex_);
    if (closed_) {
      failure = closed_;
    } else {
      for (const auto& e : entries) {
        if (entries_.count(e.request.name)) {
          failure = std::make_exception_ptr(
              Error(ErrorKind::kUsage, std::string(name_of(e.request.type)) + " '" + e.request.name +
                                           "': a tensor of this name is already " + "in flight on rank " +
                                           std::to_string(e.request.rank) + "; wait for it before reusing the name"));
          break;
        }
      }
    }
    if (!failure) {
      for (auto& e : entries) add(std::move(e));
      last_enqueue_ = Clock::now();
      if (pickup == Pickup::kBackground) {
        announced_ = true;
        notify = sleeping_;  // a futex wake per enqueue only when the thread actually sleeps
      }
    }
  }
  if (failure) {
    for (auto& e : entries) e.handle->fail_all(failure);
    return;
  }
  if (notify) work_.notify_one();
}

void TensorQueue::add(TensorEntry&& e) {
  if (spare_.empty()) {
    auto it = entries_.try_emplace(e.request.name, std::move(e)).first;
    new_.push_back(&it->second.request);
    return;
  }
  // A spare node's key keeps its capacity: a long name is not allocated again either.
  Entries::node_type node = std::move(spare_.back());
  spare_.pop_back();
  node.key() = e.request.name;
  node.mapped() = std::move(e);
  auto it = entries_.insert(std::move(node)).position;
  new_.push_back(&it->second.request);
}

// Straight into the caller's optional: an entry is a few hundred bytes, each move of it a copy of most of them.
void TensorQueue::remove(Entries::iterator it, std::optional<TensorEntry>& into) {
  Entries::node_type node = entries_.extract(it);
  into.emplace(std::move(node.mapped()));
  spare_.push_back(std::move(node));
}

bool TensorQueue::wait_for_quiet(Clock::duration gap, Clock::time_point deadline, Pause pause) {
  std::unique_lock lock(mutex_);
  const std::uint64_t takes = takes_;
  while (!shutdown_ && !closed_) {
    if (takes_ != takes) return false;
    auto until = std::min(last_enqueue_ + gap, deadline);
    if (woken_ || Clock::now() >= until) return true;
    work_.wait_until(lock, until);
    if (pause == Pause::kWidening && !woken_ && Clock::now() < last_enqueue_ + gap) gap *= 2;
  }
  return true;
}

std::size_t TensorQueue::new_count() const {
  std::lock_guard lock(mutex_);
  return new_.size();
}

bool TensorQueue::wait_for_work(Clock::time_point deadline) {
  std::unique_lock lock(mutex_);
  sleeping_ = true;
  work_.wait_until(lock, deadline, [&] { return announced_ || woken_ || shutdown_; });
  sleeping_ = false;
  return std::exchange(woken_, false);
}

void TensorQueue::wake() {
  {
    std::lock_guard lock(mutex_);
    woken_ = true;
  }
  work_.notify_one();
}

void TensorQueue::take_new(std::vector<const Request*>& into) {
  into.clear();
  std::lock_guard lock(mutex_);
  new_.swap(into);
  announced_ = false;
  ++takes_;
}

bool TensorQueue::has_new() const {
  std::lock_guard lock(mutex_);
  return !new_.empty();
}

TensorEntry* TensorQueue::find(const std::string& name) {
  std::lock_guard lock(mutex_);
  auto it = entries_.find(name);
  return it == entries_.end() ? nullptr : &it->second;
}

void TensorQueue::take(const std::vector<std::string>& names, std::vector<std::optional<TensorEntry>>& into) {
  into.clear();
  std::lock_guard lock(mutex_);
  for (const auto& name : names) {
    auto it = entries_.find(name);
    if (it == entries_.end()) {
      into.emplace_back();
      continue;
    }
    remove(it, into.emplace_back());
  }
}

std::optional<TensorEntry> TensorQueue::take(const std::string& name) {
  std::lock_guard lock(mutex_);
  auto it = entries_.find(name);
  if (it == entries_.end()) return std::nullopt;
  std::optional<TensorEntry> e;
  remove(it, e);
  return e;
}

std::size_t TensorQueue::in_flight() const {
  std::lock_guard lock(mutex_);
  return entries_.size();
}

bool TensorQueue::close(std::exception_ptr error) {
  std::unordered_map<std::string, TensorEntry> failed;
  {
    std::lock_guard lock(mutex_);
    if (closed_) return false;
    closed_ = error;
    failed.swap(entries_);
    new_.clear();
  }
  for (auto& [name, e] : failed) e.handle->fail_all(error);
  work_.notify_all();
  return true;
}

bool TensorQueue::closed() const {
  std::lock_guard lock(mutex_);
  return closed_ != nullptr;
}

void TensorQueue::request_shutdown() {
  {
    std::lock_guard lock(mutex_);
    shutdown_ = true;
  }
  work_.notify_one();
}

bool TensorQueue::shutdown_requested() const {
  std::lock_guard lock(mutex_);
  return shutdown_;
}

}  // namespace hvd::detail
